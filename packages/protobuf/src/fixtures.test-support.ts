// The codec tests' objects: a fixture of every version of every built-in kind, in the order of the
// one list the server registers (@plat/api builtinKinds), each from its kind's examples beside it
// (@plat/api/testing), with the objects that are no kind's own (testing/fixtures.ts).
import { builtinDefinitions, builtinSubresourceDefinitions } from '@plat/api';
import { examplesOf, kindExamples } from '@plat/api/testing';
import type { JsonObject } from './compile.js';
import * as shared from './testing/fixtures.js';

const definitions = [...builtinDefinitions, ...builtinSubresourceDefinitions];
const examples = await kindExamples();

/** `IPAddress` -> `ipAddress`, `ClusterRole` -> `clusterRole`: the name a test gives a kind's fixture. */
const lowerCamel = (kind: string): string => kind.replace(/^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/, (head) => head.toLowerCase());

const byKind: Record<string, JsonObject> = {};
const named: Record<string, JsonObject> = {};
for (const definition of definitions) {
  const fixture = examplesOf(examples, definition)?.fixture as JsonObject | undefined;
  if (!fixture) throw new Error(`${definition.group}/${definition.kind}: its examples have no fixture`);
  // Another group's kind of the same name (events' Event) and another version (a policy's v1alpha1) are told apart.
  const group = definition.group.replace(/\.?\{domain\}$/, '');
  const first = definitions.find((d) => d.kind === definition.kind);
  const otherGroup = first && first.group !== definition.group;
  const otherVersion = !otherGroup && first !== definition;
  const key = otherGroup ? `${definition.kind} (${group})` : otherVersion ? `${definition.kind} (${definition.version})` : definition.kind;
  const apiVersion = `${definition.group ? `${definition.group.replace('{domain}', 'plat.io')}/` : ''}${definition.version}`;
  byKind[key] = otherVersion ? { ...fixture, apiVersion } : fixture;
  if (!otherGroup && !otherVersion) named[lowerCamel(definition.kind)] = fixture;
}

/** The shared fixtures and each kind's by its name (role, ipAddress ...); objectsByKind has them all by kind. */
export const fixtures = {
  ...shared,
  ...named,
  objectsByKind: { ...byKind, ...shared.objectsByKind },
} as typeof shared & Record<string, JsonObject>;
