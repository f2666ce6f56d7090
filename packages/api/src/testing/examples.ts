// Each kind's examples, for the tests that go through every kind (@plat/api/testing): a sample its
// schema accepts (schemas.test.ts) and a fixture the Protobuf codec round-trips (@plat/protobuf's
// tests). They live beside the kind, in its folder's `<kind>-examples.test-support.ts` (its default
// export), and are found here by that name: a kind's examples are its own file's business, not a
// list's, and the image, which drops test support, ships none of them.
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '@plat/registry';

export interface KindExamples {
  /** The kind's group as its definitions name it ("" for core, `rbac.authorization.{domain}`), and its kind: every version's. */
  group: string;
  kind: string;
  /** An object with every field of the kind set, under plat.io: its schema must accept it. */
  sample: KubeObject;
  /**
   * An object as the API serves it under plat.io (every field, zero values only where Go writes
   * them): encoded and decoded as Protobuf, it must come back the same. Absent: no Protobuf form.
   */
  fixture?: Record<string, unknown>;
  /**
   * A version whose shape differs from the others' (v1beta2 PriorityLevelConfiguration's
   * assuredConcurrencyShares): its own sample and fixture, in place of the kind's.
   */
  versions?: Readonly<Record<string, { sample: KubeObject; fixture?: Record<string, unknown> }>>;
}

const SUFFIX = '-examples.test-support.js';

/** Every kind's examples, from the compiled files beside the kinds. */
export async function kindExamples(): Promise<KindExamples[]> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const files = (await readdir(root, { recursive: true })).filter((file) => file.endsWith(SUFFIX)).sort();
  const found: KindExamples[] = [];
  for (const file of files) {
    const module = (await import(new URL(`../${file.split('\\').join('/')}`, import.meta.url).href)) as { default?: KindExamples };
    if (!module.default?.kind || !module.default.sample) throw new Error(`${file}: its default export is no KindExamples`);
    found.push(module.default);
  }
  return found;
}

/**
 * The examples of a definition (any version of its group and kind), if any; given its version, with
 * that version's own sample and fixture where it has them.
 */
export function examplesOf(all: readonly KindExamples[], definition: { group: string; kind: string; version?: string }): KindExamples | undefined {
  const examples = all.find((e) => e.group === definition.group && e.kind === definition.kind);
  const own = definition.version ? examples?.versions?.[definition.version] : undefined;
  return examples && own ? { ...examples, ...own } : examples;
}

/** A sample's metadata: every ObjectMeta field set. */
export const sampleMetadata = {
  name: 'sample',
  namespace: 'default',
  uid: '6f1b1b9e-3b1a-4c1e-9c1a-2a2f3c4d5e6f',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2024-05-01T10:00:00Z',
  deletionTimestamp: '2024-05-02T10:00:00Z',
  deletionGracePeriodSeconds: 30,
  labels: { app: 'web' },
  annotations: { 'example.com/note': 'x' },
  finalizers: ['example.com/cleanup'],
  ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1', controller: true, blockOwnerDeletion: false }],
  managedFields: [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: '2024-05-01T10:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      subresource: '',
    },
  ],
};

/** When the fixtures were created. */
export const fixtureCreated = '2024-05-01T10:00:00Z';

const managedFields = (apiVersion: string, fields: Record<string, unknown>): Record<string, unknown>[] => [
  {
    manager: 'kubectl-client-side-apply',
    operation: 'Update',
    apiVersion,
    time: fixtureCreated,
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
  },
  {
    manager: 'plat-controller',
    operation: 'Apply',
    apiVersion,
    time: '2024-05-01T10:05:30Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:plat.io/owner': {} } } },
    subresource: 'status',
  },
];

/** A fixture's metadata as the API serves it: labels, annotations (non-ASCII among them), two managedFields entries. */
export const fixtureMeta = (name: string, namespace: string | undefined, apiVersion: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: `0f6c1b9e-4a1d-4c5e-9f3a-${name.replace(/[^a-z0-9]/g, '').padEnd(12, '0').slice(0, 12)}`,
  resourceVersion: '4711',
  generation: 2,
  creationTimestamp: fixtureCreated,
  labels: { app: 'shop', 'plat.io/part-of': 'billing' },
  annotations: { 'plat.io/owner': 'team-a', note: 'ünïcödé ✓ "quoted"' },
  managedFields: managedFields(apiVersion, { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } }),
  ...extra,
});
