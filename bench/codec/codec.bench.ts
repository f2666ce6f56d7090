// bench/codec: encode and decode a list of 5,000 RoleBindings as JSON and as Protobuf, and a list of
// CustomResourceDefinitions with deep schemas (JSONSchemaProps, its unions and JSON values). Prints
// MB/s of each format's own bytes and milliseconds per list (compare the times: Protobuf is smaller).
import { builtinDefinitions } from '@plat/api';
import { decodeObject, encodeObject, registerProtobufKinds, type JsonObject } from '@plat/protobuf';
import { customResourceDefinitionSource, listOf, roleBindingList } from '@plat/protobuf/testing';
import { kindExamples } from '@plat/api/testing';

registerProtobufKinds([...builtinDefinitions, customResourceDefinitionSource]);
// The CustomResourceDefinition's fixture: its kind's examples (apiextensions/custom-resource-definition-examples).
const customResourceDefinition = (await kindExamples()).find((examples) => examples.kind === 'CustomResourceDefinition')!.fixture as JsonObject;

const ITEMS = Number(process.env.BENCH_ITEMS ?? 5000);
const CRDS = Number(process.env.BENCH_CRDS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

function measure(bytes: number, operation: () => unknown): { msPerList: number; megabytesPerSecond: number } {
  operation();
  operation();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = process.hrtime.bigint();
    operation();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  return { msPerList: Math.round(median * 100) / 100, megabytesPerSecond: Math.round(bytes / 1e6 / (median / 1000)) };
}

/** JSON and Protobuf, each encoded and decoded, for one list of `items` objects. */
function measureList(list: object, items: number): Record<string, unknown> {
  const json = Buffer.from(JSON.stringify(list));
  const protobuf = encodeObject(list);
  return {
    items,
    jsonBytes: json.length,
    protobufBytes: protobuf.length,
    jsonEncode: measure(json.length, () => Buffer.from(JSON.stringify(list))),
    jsonDecode: measure(json.length, () => JSON.parse(json.toString('utf8'))),
    protobufEncode: measure(protobuf.length, () => encodeObject(list)),
    protobufDecode: measure(protobuf.length, () => decodeObject(protobuf)),
  };
}

const result = {
  benchmark: 'codec',
  ...measureList(roleBindingList(ITEMS), ITEMS),
  // Parsed from JSON, as a server holds objects: the fixture's own strings (template literals, some
  // kept as rope strings by V8) would send protobufjs's UTF-8 writer down a slower path.
  customResourceDefinitions: measureList(JSON.parse(JSON.stringify(listOf(customResourceDefinition, CRDS))) as object, CRDS),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
