import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../decode/problems.js';
import { decodeNodeAgentConfiguration, decodeNodeAgentConfigurationLeniently, encodeNodeAgentConfiguration, encodeNodeAgentConfigurationYaml } from './codec.js';
import { setDefaults } from './defaults.js';
import type { NodeAgentConfiguration } from './schema.js';

const HEAD = 'apiVersion: agent.config.plat.io/v1beta1\nkind: NodeAgentConfiguration\n';

function problems(text: string): string[] {
  try {
    decodeNodeAgentConfiguration(text);
  } catch (error) {
    assert.ok(error instanceof DecodeError, String(error));
    return error.problems.map(String);
  }
  assert.fail('expected a DecodeError');
}

const decodeCases: { name: string; text: string; expected: NodeAgentConfiguration }[] = [
  { name: 'a minimal file', text: HEAD, expected: { apiVersion: 'agent.config.plat.io/v1beta1', kind: 'NodeAgentConfiguration' } },
  {
    name: 'scalars, durations, maps and lists',
    text: `${HEAD}port: 10251\nsyncFrequency: 1h2m3.5s\nenableServer: false\nmemoryThrottlingFactor: 0.5\nclusterDNS: [10.0.0.10]\nfeatureGates: {NodeSwap: true}\nevictionHard:\n  memory.available: 1Gi\n`,
    expected: {
      apiVersion: 'agent.config.plat.io/v1beta1',
      kind: 'NodeAgentConfiguration',
      port: 10251,
      syncFrequency: 3_723_500,
      enableServer: false,
      memoryThrottlingFactor: 0.5,
      clusterDNS: ['10.0.0.10'],
      featureGates: { NodeSwap: true },
      evictionHard: { 'memory.available': '1Gi' },
    },
  },
  {
    name: 'JSON, with tabs',
    text: '{\n\t"apiVersion": "agent.config.plat.io/v1beta1",\n\t"kind": "NodeAgentConfiguration",\n\t"authentication": {"webhook": {"cacheTTL": "1m"}},\n\t"registerWithTaints": [{"key": "k", "effect": "NoSchedule"}]\n}',
    expected: {
      apiVersion: 'agent.config.plat.io/v1beta1',
      kind: 'NodeAgentConfiguration',
      authentication: { webhook: { cacheTTL: 60_000 } },
      registerWithTaints: [{ key: 'k', effect: 'NoSchedule' }],
    },
  },
  { name: 'null leaves a field unset', text: `${HEAD}port: null\naddress: ~\n`, expected: { apiVersion: 'agent.config.plat.io/v1beta1', kind: 'NodeAgentConfiguration' } },
  {
    name: 'flushFrequency as text or as nanoseconds',
    text: `${HEAD}logging:\n  flushFrequency: 2500000000\n`,
    expected: { apiVersion: 'agent.config.plat.io/v1beta1', kind: 'NodeAgentConfiguration', logging: { flushFrequency: { durationMs: 2500, serializeAsString: false } } },
  },
  {
    name: 'quantities written as numbers where upstream holds a Quantity',
    text: `${HEAD}reservedMemory:\n- numaNode: 0\n  limits: {memory: 1073741824}\nlogging:\n  options:\n    json:\n      infoBufferSize: 65536\n`,
    expected: {
      apiVersion: 'agent.config.plat.io/v1beta1',
      kind: 'NodeAgentConfiguration',
      reservedMemory: [{ numaNode: 0, limits: { memory: '1073741824' } }],
      logging: { options: { json: { infoBufferSize: '65536' } } },
    },
  },
  {
    name: 'YAML anchors and aliases',
    text: `${HEAD}systemReserved: &r {cpu: 500m}\nplatReserved: *r\n`,
    expected: { apiVersion: 'agent.config.plat.io/v1beta1', kind: 'NodeAgentConfiguration', systemReserved: { cpu: '500m' }, platReserved: { cpu: '500m' } },
  },
];

for (const { name, text, expected } of decodeCases) {
  test(`decode: ${name}`, () => {
    assert.deepEqual(decodeNodeAgentConfiguration(text), expected);
  });
}

const problemCases: { name: string; text: string; expected: string[] }[] = [
  { name: 'an unknown top-level field', text: `${HEAD}podsPerNode: 3\n`, expected: ['unknown field "podsPerNode"'] },
  { name: 'an unknown nested field', text: `${HEAD}authentication:\n  webhook:\n    cacheTtl: 1m\n`, expected: ['unknown field "authentication.webhook.cacheTtl"'] },
  { name: 'field names are case-sensitive', text: `${HEAD}Port: 1\n`, expected: ['unknown field "Port"'] },
  { name: 'an unknown field in a list item', text: `${HEAD}registerWithTaints:\n- key: a\n  color: red\n`, expected: ['unknown field "registerWithTaints[0].color"'] },
  { name: 'a duplicate top-level field', text: `${HEAD}port: 1\nport: 2\n`, expected: ['duplicate field "port"'] },
  { name: 'a duplicate nested field', text: `${HEAD}authorization:\n  mode: Webhook\n  mode: AlwaysAllow\n`, expected: ['duplicate field "authorization.mode"'] },
  { name: 'a duplicate map key', text: `${HEAD}featureGates:\n  NodeSwap: true\n  NodeSwap: false\n`, expected: ['duplicate field "featureGates[NodeSwap]"'] },
  { name: 'a duplicate key in JSON', text: '{"apiVersion":"agent.config.plat.io/v1beta1","kind":"NodeAgentConfiguration","maxPods":1,"maxPods":2}', expected: ['duplicate field "maxPods"'] },
  { name: 'a string where a number goes', text: `${HEAD}maxPods: lots\n`, expected: ['maxPods: Invalid value: "lots": expected an integer (int32)'] },
  { name: 'a number where a string goes', text: `${HEAD}clusterDomain: 12\n`, expected: ['clusterDomain: Invalid value: 12: expected a string'] },
  { name: 'an unquoted boolean where a string goes', text: `${HEAD}cpuManagerPolicyOptions:\n  full-pcpus-only: true\n`, expected: ['cpuManagerPolicyOptions[full-pcpus-only]: Invalid value: true: expected a string'] },
  { name: 'a fraction where an integer goes', text: `${HEAD}port: 1.5\n`, expected: ['port: Invalid value: 1.5: expected an integer (int32)'] },
  { name: 'an int32 out of range', text: `${HEAD}port: 3000000000\n`, expected: ['port: Invalid value: 3000000000: out of range for int32 (-2147483648 to 2147483647)'] },
  { name: 'a duration that is not one', text: `${HEAD}syncFrequency: 5 minutes\n`, expected: ['syncFrequency: Invalid value: "5 minutes": time: unknown unit " minutes" in duration "5 minutes"'] },
  { name: 'a number where a duration goes', text: `${HEAD}syncFrequency: 60\n`, expected: ['syncFrequency: Invalid value: 60: expected a duration string such as "1m30s"'] },
  { name: 'a scalar where an object goes', text: `${HEAD}authentication: on\n`, expected: ['authentication: Invalid value: "on": expected an object'] },
  { name: 'a mapping where a list goes', text: `${HEAD}clusterDNS: {a: b}\n`, expected: ['clusterDNS: Invalid value: "a mapping": expected a list'] },
  {
    name: 'every problem together, in document order',
    text: `${HEAD}maxPods: x\nfoo: 1\nport: 1\nport: 2\nlogging:\n  format: text\n  bar: {}\n`,
    expected: ['maxPods: Invalid value: "x": expected an integer (int32)', 'unknown field "foo"', 'duplicate field "port"', 'unknown field "logging.bar"'],
  },
  // Go's YAML reader keeps a key's last value before the fields are decoded.
  { name: "a duplicate's earlier value is not decoded", text: `${HEAD}port: x\nport: 2\n`, expected: ['duplicate field "port"'] },
  { name: 'a key written three times is two duplicates', text: `${HEAD}port: 1\nport: 2\nport: 3\n`, expected: ['duplicate field "port"', 'duplicate field "port"'] },
  { name: 'a missing apiVersion and kind', text: 'port: 1\n', expected: ['apiVersion: Required value: must be agent.config.plat.io/v1beta1', 'kind: Required value: must be NodeAgentConfiguration'] },
  { name: 'an empty file', text: '', expected: ['apiVersion: Required value: must be agent.config.plat.io/v1beta1', 'kind: Required value: must be NodeAgentConfiguration'] },
  {
    name: 'another apiVersion, reported alone',
    text: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: NodeAgentConfiguration\nunknown: 1\n',
    expected: ['apiVersion: Unsupported value: "kubelet.config.k8s.io/v1beta1": supported values: "agent.config.plat.io/v1beta1"'],
  },
  { name: 'another kind', text: 'apiVersion: agent.config.plat.io/v1beta1\nkind: CredentialProviderConfig\nproviders: []\n', expected: ['kind: Invalid value: "CredentialProviderConfig": expected NodeAgentConfiguration'] },
  { name: 'a document that is not a mapping', text: '- a\n- b\n', expected: ['the document must be a mapping (an object)'] },
];

for (const { name, text, expected } of problemCases) {
  test(`decode error: ${name}`, () => {
    assert.deepEqual(problems(text), expected);
  });
}

test('decode error: YAML that does not parse names the problem and where it is', () => {
  assert.deepEqual(problems(`${HEAD}port: 1\n\tmaxPods: 2\n`), ['error parsing YAML or JSON: line 4, column 1: Tabs are not allowed as indentation']);
  const [problem, ...rest] = problems(`${HEAD}port: [1\n`);
  assert.equal(rest.length, 0);
  assert.match(problem!, /^error parsing YAML or JSON: line \d+, column \d+: Flow sequence/);
});

test('decode error: a document may use at most 100 aliases', () => {
  const aliases = (n: number): string => `${HEAD}clusterDomain: &a x\nclusterDNS: [${Array(n).fill('*a').join(', ')}]\n`;
  assert.equal(decodeNodeAgentConfiguration(aliases(100)).clusterDNS?.length, 100);
  assert.deepEqual(problems(aliases(101)), ['the document uses more than 100 YAML aliases']);
});

test('decode error: one document per file', () => {
  assert.deepEqual(problems(`${HEAD}---\nport: 1\n`), ['error parsing YAML or JSON: the file must hold one document, not several']);
});

test('decode error: the DecodeError message lists every problem', () => {
  assert.throws(() => decodeNodeAgentConfiguration(`${HEAD}a: 1\nb: 2\n`), {
    name: 'DecodeError',
    message: 'failed to decode NodeAgentConfiguration: unknown field "a", unknown field "b"',
  });
});

// Upstream's agent decodes v1beta1 strictly, then leniently when strict decoding's only complaints
// are unknown or duplicate fields, which it logs. Here the type errors are returned beside them.
const lenientCases: { name: string; text: string; config: NodeAgentConfiguration; warnings: string[]; errors: string[] }[] = [
  {
    name: 'an unknown field is a warning, the rest decoded',
    text: `${HEAD}podsPerNode: 3\nmaxPods: 10\n`,
    config: { apiVersion: 'agent.config.plat.io/v1beta1', kind: 'NodeAgentConfiguration', maxPods: 10 },
    warnings: ['unknown field "podsPerNode"'],
    errors: [],
  },
  {
    name: 'a duplicate is a warning, the last value used',
    text: `${HEAD}authorization:\n  mode: Webhook\n  mode: AlwaysAllow\nfeatureGates:\n  NodeSwap: true\n  NodeSwap: false\n`,
    config: { apiVersion: 'agent.config.plat.io/v1beta1', kind: 'NodeAgentConfiguration', authorization: { mode: 'AlwaysAllow' }, featureGates: { NodeSwap: false } },
    warnings: ['duplicate field "authorization.mode"', 'duplicate field "featureGates[NodeSwap]"'],
    errors: [],
  },
  {
    name: 'a wrong type is an error, the field left unset and the rest decoded',
    text: `${HEAD}maxPods: many\nbogus: 1\nport: 10250\nsyncFrequency: soon\n`,
    config: { apiVersion: 'agent.config.plat.io/v1beta1', kind: 'NodeAgentConfiguration', port: 10250 },
    warnings: ['unknown field "bogus"'],
    errors: ['maxPods: Invalid value: "many": expected an integer (int32)', 'syncFrequency: Invalid value: "soon": time: invalid duration "soon"'],
  },
];

for (const { name, text, config, warnings, errors } of lenientCases) {
  test(`decode leniently: ${name}`, () => {
    const decoded = decodeNodeAgentConfigurationLeniently(text);
    assert.deepEqual(decoded.config, config);
    assert.deepEqual(decoded.warnings.map(String), warnings);
    assert.deepEqual(decoded.errors.map(String), errors);
  });
}

test('decode leniently: what leaves nothing to decode still throws (syntax, apiVersion, kind)', () => {
  for (const text of [`${HEAD}port: [1\n`, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: NodeAgentConfiguration\n', '- a\n', `${HEAD}? [a]\n: 1\n`]) {
    assert.throws(() => decodeNodeAgentConfigurationLeniently(text), { name: 'DecodeError' }, text);
  }
});

test('encode: the defaulted configuration decodes back to itself', () => {
  const defaulted = setDefaults({ nodeStatusUpdateFrequency: 20_000, logging: { flushFrequency: { durationMs: 1500, serializeAsString: false } } });
  assert.deepEqual(decodeNodeAgentConfiguration(encodeNodeAgentConfigurationYaml(defaulted)), defaulted);
});

test('encode: durations as Go writes them, flushFrequency as it was written, map keys sorted', () => {
  const encoded = encodeNodeAgentConfiguration({
    syncFrequency: 90_000,
    evictionHard: { 'nodefs.available': '10%', 'memory.available': '1Gi' },
    logging: { flushFrequency: { durationMs: 1500, serializeAsString: false } },
  }) as Record<string, unknown>;
  assert.equal(encoded.syncFrequency, '1m30s');
  assert.deepEqual(Object.keys(encoded.evictionHard as object), ['memory.available', 'nodefs.available']);
  assert.deepEqual(encoded.logging, { flushFrequency: 1_500_000_000 });
});
