import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apply, ApplyConflictError, recordUpdate } from './apply.js';
import type { ManagedFieldsEntry } from './managed-fields.js';
import { PatchError } from './patch-error.js';
import type { JSONSchema } from './schema-walker.js';
import { roleSchema, widgetSchema } from './testing/schemas.js';

type Obj = Record<string, unknown>;

interface Step {
  manager: string;
  op: 'apply' | 'update';
  /** apply: the intent; update: the whole new object (its managedFields as the client sent them). */
  body: Obj;
  force?: boolean;
  want?: {
    object?: Obj;
    managedFields?: ManagedFieldsEntry[];
    conflicts?: { manager: string; field: string }[];
    message?: string;
    error?: PatchError['kind'];
  };
}

interface Scenario {
  name: string;
  schema?: JSONSchema;
  /** An object that exists before the steps, without managedFields (untracked). */
  initial?: Obj;
  steps: Step[];
}

const time = (step: number): string => `2024-05-01T10:00:${String(step).padStart(2, '0')}Z`;
const widget = (spec?: Obj, metadata: Obj = {}, extra: Obj = {}): Obj => ({
  apiVersion: 'example.plat.io/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', ...metadata },
  ...(spec ? { spec } : {}),
  ...extra,
});
const entry = (manager: string, operation: 'Apply' | 'Update', step: number | undefined, fieldsV1: Obj, apiVersion = 'example.plat.io/v1'): ManagedFieldsEntry => ({
  manager,
  operation,
  apiVersion,
  ...(step === undefined ? {} : { time: time(step) }),
  fieldsType: 'FieldsV1',
  fieldsV1,
});
const fSpec = (fields: Obj): Obj => ({ 'f:spec': fields });

const scenarios: Scenario[] = [
  {
    name: 'two appliers of the same value share the field',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ replicas: 1, paused: true }) },
      {
        manager: 'bob',
        op: 'apply',
        body: widget({ replicas: 1 }),
        want: {
          object: widget({ replicas: 1, paused: true }, { uid: 'uid-1' }),
          managedFields: [
            entry('alice', 'Apply', 0, fSpec({ 'f:paused': {}, 'f:replicas': {} })),
            entry('bob', 'Apply', 1, fSpec({ 'f:replicas': {} })),
          ],
        },
      },
      // Shared: a later change by either conflicts.
      {
        manager: 'alice',
        op: 'apply',
        body: widget({ replicas: 2, paused: true }),
        want: { conflicts: [{ manager: 'bob', field: '.spec.replicas' }], message: 'Apply failed with 1 conflict: conflict with "bob": .spec.replicas' },
      },
    ],
  },
  {
    name: 'conflict, then force: the applier becomes the sole owner',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ replicas: 1, paused: true }) },
      { manager: 'bob', op: 'apply', body: widget({ replicas: 2 }), want: { conflicts: [{ manager: 'alice', field: '.spec.replicas' }] } },
      {
        manager: 'bob',
        op: 'apply',
        body: widget({ replicas: 2 }),
        force: true,
        want: {
          object: widget({ replicas: 2, paused: true }, { uid: 'uid-1' }),
          managedFields: [entry('alice', 'Apply', 0, fSpec({ 'f:paused': {} })), entry('bob', 'Apply', 2, fSpec({ 'f:replicas': {} }))],
        },
      },
    ],
  },
  {
    name: 'conflict, then drop the field from the intent: the value stays',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ replicas: 1 }) },
      { manager: 'bob', op: 'apply', body: widget({ replicas: 2, paused: false }), want: { conflicts: [{ manager: 'alice', field: '.spec.replicas' }] } },
      {
        manager: 'bob',
        op: 'apply',
        body: widget({ paused: false }),
        want: {
          object: widget({ replicas: 1, paused: false }, { uid: 'uid-1' }),
          managedFields: [entry('alice', 'Apply', 0, fSpec({ 'f:replicas': {} })), entry('bob', 'Apply', 2, fSpec({ 'f:paused': {} }))],
        },
      },
    ],
  },
  {
    name: "conflict, then adopt the server's value: shared ownership",
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ replicas: 1 }) },
      { manager: 'bob', op: 'apply', body: widget({ replicas: 2 }), want: { conflicts: [{ manager: 'alice', field: '.spec.replicas' }] } },
      {
        manager: 'bob',
        op: 'apply',
        body: widget({ replicas: 1 }),
        want: {
          object: widget({ replicas: 1 }, { uid: 'uid-1' }),
          managedFields: [entry('alice', 'Apply', 0, fSpec({ 'f:replicas': {} })), entry('bob', 'Apply', 2, fSpec({ 'f:replicas': {} }))],
        },
      },
    ],
  },
  {
    name: 'giving up a field by omission removes it when the applier owned it alone',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ replicas: 1 }, { labels: { app: 'a', tier: 'web' } }) },
      {
        manager: 'alice',
        op: 'apply',
        body: widget({ replicas: 1 }, { labels: { app: 'a' } }),
        want: {
          object: widget({ replicas: 1 }, { uid: 'uid-1', labels: { app: 'a' } }),
          managedFields: [entry('alice', 'Apply', 1, { 'f:metadata': { 'f:labels': { 'f:app': {} } }, ...fSpec({ 'f:replicas': {} }) })],
        },
      },
      {
        manager: 'alice',
        op: 'apply',
        body: widget(),
        want: { object: widget(undefined, { uid: 'uid-1' }), managedFields: [] },
      },
    ],
  },
  {
    name: 'giving up a shared field by omission keeps it, owned by the other',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ replicas: 1 }, { labels: { tier: 'web' } }) },
      { manager: 'bob', op: 'apply', body: widget(undefined, { labels: { tier: 'web' } }) },
      {
        manager: 'alice',
        op: 'apply',
        body: widget({ replicas: 1 }),
        want: {
          object: widget({ replicas: 1 }, { uid: 'uid-1', labels: { tier: 'web' } }),
          managedFields: [
            // The object did not change: alice's time stays.
            entry('alice', 'Apply', 0, fSpec({ 'f:replicas': {} })),
            entry('bob', 'Apply', 1, { 'f:metadata': { 'f:labels': { 'f:tier': {} } } }),
          ],
        },
      },
    ],
  },
  {
    name: 'list-type set: appliers own their values; an omitted value goes',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ tags: ['a', 'b'] }) },
      {
        manager: 'bob',
        op: 'apply',
        body: widget({ tags: ['c'] }),
        want: {
          object: widget({ tags: ['a', 'b', 'c'] }, { uid: 'uid-1' }),
          managedFields: [
            entry('alice', 'Apply', 0, fSpec({ 'f:tags': { 'v:"a"': {}, 'v:"b"': {} } })),
            entry('bob', 'Apply', 1, fSpec({ 'f:tags': { 'v:"c"': {} } })),
          ],
        },
      },
      {
        manager: 'alice',
        op: 'apply',
        body: widget({ tags: ['a'] }),
        want: { object: widget({ tags: ['a', 'c'] }, { uid: 'uid-1' }) },
      },
    ],
  },
  {
    name: 'list-type map: items merge by key; another applier changing an item field conflicts',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ ports: [{ port: 80, protocol: 'TCP', name: 'http' }] }) },
      {
        manager: 'bob',
        op: 'apply',
        body: widget({ ports: [{ port: 53, protocol: 'UDP', name: 'dns' }] }),
        want: {
          object: widget({ ports: [{ port: 80, protocol: 'TCP', name: 'http' }, { port: 53, protocol: 'UDP', name: 'dns' }] }, { uid: 'uid-1' }),
          managedFields: [
            entry('alice', 'Apply', 0, fSpec({ 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } } })),
            entry('bob', 'Apply', 1, fSpec({ 'f:ports': { 'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } } })),
          ],
        },
      },
      {
        manager: 'bob',
        op: 'apply',
        body: widget({ ports: [{ port: 53, protocol: 'UDP', name: 'dns' }, { port: 80, protocol: 'TCP', name: 'web' }] }),
        want: { conflicts: [{ manager: 'alice', field: '.spec.ports[port=80,protocol="TCP"].name' }] },
      },
    ],
  },
  {
    name: 'atomic list: replaced whole, one owner',
    schema: roleSchema,
    steps: [
      {
        manager: 'alice',
        op: 'apply',
        body: { apiVersion: 'rbac.authorization.plat.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules: [{ verbs: ['get'], resources: ['pods'] }] },
      },
      {
        manager: 'bob',
        op: 'apply',
        body: {
          apiVersion: 'rbac.authorization.plat.io/v1',
          kind: 'Role',
          metadata: { name: 'r', namespace: 'ns' },
          rules: [{ verbs: ['get'], resources: ['pods'] }, { verbs: ['list'], resources: ['secrets'] }],
        },
        want: { conflicts: [{ manager: 'alice', field: '.rules' }] },
      },
      {
        manager: 'bob',
        op: 'apply',
        force: true,
        body: { apiVersion: 'rbac.authorization.plat.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules: [{ verbs: ['list'], resources: ['secrets'] }] },
        want: {
          object: { apiVersion: 'rbac.authorization.plat.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'ns', uid: 'uid-1' }, rules: [{ verbs: ['list'], resources: ['secrets'] }] },
          managedFields: [entry('bob', 'Apply', 2, { 'f:rules': {} }, 'rbac.authorization.plat.io/v1')],
        },
      },
    ],
  },
  {
    name: 'map-type atomic: the whole map is one field',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ selector: { matchLabels: { a: 'b' } } }) },
      {
        manager: 'bob',
        op: 'apply',
        body: widget({ selector: { matchLabels: { c: 'd' } } }),
        want: { conflicts: [{ manager: 'alice', field: '.spec.selector' }] },
      },
      {
        manager: 'bob',
        op: 'apply',
        force: true,
        body: widget({ selector: { matchLabels: { c: 'd' } } }),
        want: {
          object: widget({ selector: { matchLabels: { c: 'd' } } }, { uid: 'uid-1' }),
          managedFields: [entry('bob', 'Apply', 2, fSpec({ 'f:selector': {} }))],
        },
      },
    ],
  },
  {
    name: 'before-first-apply: an untracked object is first attributed to before-first-apply',
    initial: widget({ replicas: 1, paused: true }, { uid: 'uid-0', labels: { app: 'x' } }),
    steps: [
      {
        manager: 'alice',
        op: 'apply',
        body: widget({ replicas: 1 }),
        want: {
          object: widget({ replicas: 1, paused: true }, { uid: 'uid-0', labels: { app: 'x' } }),
          managedFields: [
            entry('alice', 'Apply', 0, fSpec({ 'f:replicas': {} })),
            entry('before-first-apply', 'Update', 0, {
              'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
              'f:spec': { '.': {}, 'f:paused': {}, 'f:replicas': {} },
            }),
          ],
        },
      },
      {
        manager: 'alice',
        op: 'apply',
        body: widget({ replicas: 5 }),
        want: {
          conflicts: [{ manager: 'before-first-apply', field: '.spec.replicas' }],
          message: 'Apply failed with 1 conflict: conflict with "before-first-apply" using example.plat.io/v1: .spec.replicas',
        },
      },
    ],
  },
  {
    name: 'an update takes ownership from an applier, and a later apply conflicts',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ replicas: 1, paused: true }) },
      {
        manager: 'kubectl-edit',
        op: 'update',
        body: widget({ replicas: 3, paused: true }, { uid: 'uid-1' }),
        want: {
          managedFields: [entry('alice', 'Apply', 0, fSpec({ 'f:paused': {} })), entry('kubectl-edit', 'Update', 1, fSpec({ 'f:replicas': {} }))],
        },
      },
      {
        manager: 'alice',
        op: 'apply',
        body: widget({ replicas: 1, paused: true }),
        want: {
          conflicts: [{ manager: 'kubectl-edit', field: '.spec.replicas' }],
          message: 'Apply failed with 1 conflict: conflict with "kubectl-edit" using example.plat.io/v1: .spec.replicas',
        },
      },
    ],
  },
  {
    name: 'an update that creates records every field, with "." on new containers; updates merge per manager',
    steps: [
      {
        manager: 'kubectl-create',
        op: 'update',
        body: widget({ replicas: 1 }, { labels: { app: 'a' } }),
        want: {
          managedFields: [
            entry('kubectl-create', 'Update', 0, { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { '.': {}, 'f:replicas': {} } }),
          ],
        },
      },
      {
        manager: 'kubectl-create',
        op: 'update',
        body: widget({ replicas: 1, tags: ['x'] }, { uid: 'uid-1', labels: { app: 'a' } }),
        want: {
          managedFields: [
            entry('kubectl-create', 'Update', 1, {
              'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
              'f:spec': { '.': {}, 'f:replicas': {}, 'f:tags': { '.': {}, 'v:"x"': {} } },
            }),
          ],
        },
      },
      {
        manager: 'other',
        op: 'update',
        body: widget({ replicas: 1 }, { uid: 'uid-1', labels: { app: 'a' } }),
        want: {
          managedFields: [
            entry('kubectl-create', 'Update', 1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { '.': {}, 'f:replicas': {} } }),
          ],
        },
      },
    ],
  },
  {
    name: 'managedFields [{}] resets them; the requester owns what it changed; [] does not reset',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ replicas: 1 }) },
      {
        manager: 'kubectl-patch',
        op: 'update',
        body: widget({ replicas: 1 }, { uid: 'uid-1', managedFields: [] }),
        want: { managedFields: [entry('alice', 'Apply', 0, fSpec({ 'f:replicas': {} }))] },
      },
      {
        manager: 'kubectl-patch',
        op: 'update',
        body: widget({ replicas: 1 }, { uid: 'uid-1', labels: { a: 'b' }, managedFields: [{}] }),
        want: { managedFields: [entry('kubectl-patch', 'Update', 2, { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } })] },
      },
    ],
  },
  {
    name: 'an untracked object stays untracked by updates',
    initial: widget({ replicas: 1 }, { uid: 'uid-0' }),
    steps: [{ manager: 'kubectl', op: 'update', body: widget({ replicas: 2 }, { uid: 'uid-0' }), want: { managedFields: [] } }],
  },
  {
    name: 'status is nobody\'s on the main resource; a no-op apply keeps the time',
    steps: [
      { manager: 'alice', op: 'apply', body: widget({ replicas: 1 }, {}, { status: { phase: 'Ready' } }) },
      {
        manager: 'alice',
        op: 'apply',
        body: widget({ replicas: 1 }),
        want: {
          object: widget({ replicas: 1 }, { uid: 'uid-1' }, { status: { phase: 'Ready' } }),
          managedFields: [entry('alice', 'Apply', 0, fSpec({ 'f:replicas': {} }))],
        },
      },
    ],
  },
  {
    name: 'conflicts with several managers are reported per manager, sorted',
    steps: [
      { manager: 'zed', op: 'apply', body: widget({ replicas: 1, paused: true }) },
      { manager: 'amy', op: 'update', body: widget({ replicas: 1, paused: true, data: { k: 'v' } }, { uid: 'uid-1' }) },
      {
        manager: 'bob',
        op: 'apply',
        body: widget({ replicas: 2, paused: false, data: { k: 'w' } }),
        want: {
          conflicts: [
            { manager: 'amy', field: '.spec.data.k' },
            { manager: 'zed', field: '.spec.paused' },
            { manager: 'zed', field: '.spec.replicas' },
          ],
          message:
            'Apply failed with 3 conflicts: conflicts with "amy" using example.plat.io/v1:\n- .spec.data.k\nconflicts with "zed":\n- .spec.paused\n- .spec.replicas',
        },
      },
    ],
  },
  {
    name: 'apply refuses managedFields in the body and map-list items without their keys',
    steps: [
      { manager: 'alice', op: 'apply', body: widget(undefined, { managedFields: [] }), want: { error: 'bad-request', message: 'metadata.managedFields must be nil' } },
      { manager: 'alice', op: 'apply', body: widget({ ports: [{ port: 80 }] }), want: { error: 'bad-request' } },
      { manager: 'alice', op: 'apply', body: widget({ tags: ['a', 'a'] }), want: { error: 'bad-request' } },
    ],
  },
];

for (const scenario of scenarios) {
  test(`apply scenario: ${scenario.name}`, () => {
    const schema = scenario.schema ?? widgetSchema;
    let live: Obj | null = scenario.initial ? structuredClone(scenario.initial) : null;
    scenario.steps.forEach((step, i) => {
      const label = `step ${i} (${step.manager} ${step.op})`;
      const options = { manager: step.manager, apiVersion: String(step.body.apiVersion), now: time(i), schema };
      let object: Obj;
      let managedFields: ManagedFieldsEntry[];
      try {
        if (step.op === 'apply') {
          ({ object, managedFields } = apply(live, step.body, { ...options, force: step.force ?? false }));
        } else {
          managedFields = recordUpdate(live, step.body, options);
          object = structuredClone(step.body);
          delete (object.metadata as Obj).managedFields;
        }
      } catch (err) {
        if (step.want?.conflicts) {
          assert.ok(err instanceof ApplyConflictError, `${label}: ${String(err)}`);
          assert.deepEqual(err.conflicts.map(({ manager, field }) => ({ manager, field })), step.want.conflicts, label);
          if (step.want.message) assert.equal(err.message, step.want.message, label);
          return;
        }
        if (step.want?.error) {
          assert.ok(err instanceof PatchError && err.kind === step.want.error, `${label}: ${String(err)}`);
          if (step.want.message) assert.equal(err.message, step.want.message, label);
          return;
        }
        throw err;
      }
      assert.ok(!step.want?.conflicts && !step.want?.error, `${label}: expected an error`);
      const metadata = object.metadata as Obj;
      assert.equal(metadata.managedFields, undefined, `${label}: managedFields are not left in the object`);
      if (!metadata.uid) metadata.uid = 'uid-1';
      if (step.want?.object) assert.deepEqual(object, step.want.object, `${label}: object`);
      if (step.want?.managedFields) assert.deepEqual(managedFields, step.want.managedFields, `${label}: managedFields`);
      live = { ...object, metadata: { ...metadata, ...(managedFields.length ? { managedFields } : {}) } };
    });
  });
}

test('apply: the conflict Status is upstream\'s NewApplyConflict', () => {
  const first = apply(null, widget({ replicas: 1 }), { manager: 'alice', force: false, apiVersion: 'example.plat.io/v1', now: time(0), schema: widgetSchema });
  const live = { ...first.object, metadata: { ...(first.object.metadata as Obj), uid: 'u', managedFields: first.managedFields } };
  assert.throws(
    () => apply(live, widget({ replicas: 2 }), { manager: 'bob', force: false, apiVersion: 'example.plat.io/v1', now: time(1), schema: widgetSchema }),
    (err: unknown) => {
      assert.ok(err instanceof ApplyConflictError);
      assert.deepEqual(err.toStatusError().status, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas',
        reason: 'Conflict',
        details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' }] },
        code: 409,
      });
      return true;
    },
  );
});

test('apply: a body of another kind is refused as upstream\'s version check does', () => {
  assert.throws(
    () =>
      apply(null, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, {
        manager: 'a',
        force: false,
        apiVersion: 'example.plat.io/v1',
        kind: 'Widget',
        now: time(0),
        schema: widgetSchema,
      }),
    (err: unknown) => err instanceof PatchError && err.kind === 'bad-request' && err.message === 'invalid object type: /v1, Kind=Pod',
  );
});

test('apply: the result shares nothing with live or the body', () => {
  const body = widget({ ports: [{ port: 80, protocol: 'TCP' }] }, { labels: { a: 'b' } });
  const { object } = apply(null, body, { manager: 'a', force: false, apiVersion: 'example.plat.io/v1', now: time(0), schema: widgetSchema });
  ((object.spec as Obj).ports as Obj[])[0]!.name = 'changed';
  assert.deepEqual(body, widget({ ports: [{ port: 80, protocol: 'TCP' }] }, { labels: { a: 'b' } }));
});

test('recordUpdate: more than ten update managers are merged into ancient-changes', () => {
  let live: Obj | null = null;
  for (let i = 0; i < 12; i++) {
    const body = widget(undefined, { uid: live ? 'u' : undefined, labels: { [`l${i}`]: 'x', ...((live?.metadata as Obj | undefined)?.labels as Obj) } });
    if (!live) delete (body.metadata as Obj).uid;
    const managedFields = recordUpdate(live, body, { manager: `m${i}`, apiVersion: 'example.plat.io/v1', now: time(i), schema: widgetSchema });
    live = { ...body, metadata: { ...(body.metadata as Obj), uid: 'u', managedFields } };
  }
  const managers = ((live!.metadata as Obj).managedFields as ManagedFieldsEntry[]).map((e) => e.manager);
  assert.equal(managers.length, 10);
  assert.deepEqual(managers.slice(0, 1), ['ancient-changes']);
});

test('apply: kubectl taking over from client-side apply (its last-applied annotation) is not a conflict', () => {
  const annotation = 'kubectl.kubernetes.io/last-applied-configuration';
  const intent = widget({ replicas: 1 });
  const created = widget({ replicas: 1 }, { annotations: { [annotation]: JSON.stringify(intent) + '\n' } });
  const managedFields = recordUpdate(null, created, { manager: 'kubectl-client-side-apply', apiVersion: 'example.plat.io/v1', now: time(0), schema: widgetSchema });
  const live = { ...created, metadata: { ...(created.metadata as Obj), uid: 'u', managedFields } };
  const options = { force: false, apiVersion: 'example.plat.io/v1', now: time(1), schema: widgetSchema };
  // Another manager conflicts as usual.
  assert.throws(() => apply(live, widget({ replicas: 2 }), { ...options, manager: 'other' }), ApplyConflictError);
  const next = widget({ replicas: 2 });
  const result = apply(live, next, { ...options, manager: 'kubectl' });
  assert.equal((result.object.spec as Obj).replicas, 2);
  const annotations = (result.object.metadata as Obj).annotations as Obj;
  assert.equal(annotations[annotation], '{"apiVersion":"example.plat.io/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"replicas":2}}\n');
  assert.deepEqual(
    result.managedFields.map((e) => [e.manager, e.operation, e.fieldsV1]),
    [
      ['kubectl', 'Apply', fSpec({ 'f:replicas': {} })],
      // It keeps `.spec` itself (a member without children now encodes as {}).
      ['kubectl-client-side-apply', 'Update', { 'f:metadata': { 'f:annotations': { '.': {}, [`f:${annotation}`]: {} } }, 'f:spec': {} }],
    ],
  );
});

test('apply: entries are kept per manager and subresource; update entries per apiVersion', () => {
  const first = apply(null, widget({ replicas: 1 }, {}, { status: { phase: 'A' } }), {
    manager: 'alice',
    force: false,
    apiVersion: 'example.plat.io/v1',
    now: time(0),
    schema: widgetSchema,
  });
  let live: Obj = { ...first.object, metadata: { ...(first.object.metadata as Obj), uid: 'u', managedFields: first.managedFields } };
  const status = apply(live, widget(undefined, {}, { status: { phase: 'B' } }), {
    manager: 'alice',
    force: false,
    apiVersion: 'example.plat.io/v1',
    now: time(1),
    schema: widgetSchema,
    subresource: 'status',
  });
  assert.deepEqual(
    status.managedFields.map((e) => [e.manager, e.operation, e.subresource, e.fieldsV1]),
    [
      ['alice', 'Apply', undefined, fSpec({ 'f:replicas': {} })],
      ['alice', 'Apply', 'status', { 'f:status': { 'f:phase': {} } }],
    ],
  );
  live = { ...status.object, metadata: { ...(status.object.metadata as Obj), managedFields: status.managedFields } };
  const v2 = recordUpdate(live, { ...widget({ replicas: 9 }, { uid: 'u' }), apiVersion: 'example.plat.io/v2' }, {
    manager: 'alice',
    apiVersion: 'example.plat.io/v2',
    now: time(2),
    schema: widgetSchema,
  });
  assert.deepEqual(
    v2.map((e) => [e.manager, e.operation, e.apiVersion, e.subresource ?? '']),
    [
      ['alice', 'Apply', 'example.plat.io/v1', 'status'],
      ['alice', 'Update', 'example.plat.io/v2', ''],
    ],
  );
});

test('recordUpdate: with the kind\'s empty object, structs it always has get no "." on create', () => {
  const created = widget({ replicas: 1 }, { labels: { a: 'b' } });
  const plain = recordUpdate(null, created, { manager: 'm', apiVersion: 'example.plat.io/v1', now: time(0), schema: widgetSchema });
  const typed = recordUpdate(null, created, {
    manager: 'm',
    apiVersion: 'example.plat.io/v1',
    now: time(0),
    schema: widgetSchema,
    emptyObject: { metadata: {}, spec: {} },
  });
  assert.deepEqual(plain[0]!.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { '.': {}, 'f:replicas': {} } });
  assert.deepEqual(typed[0]!.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { 'f:replicas': {} } });
});

test('apply: a list that became atomic is owned whole by its previous item owners; one that became granular conflicts with nobody', () => {
  const granular: JSONSchema = { ...widgetSchema };
  const spec = (widgetSchema.properties as Obj).spec as Obj;
  const tagsAtomic: JSONSchema = {
    ...widgetSchema,
    properties: {
      ...(widgetSchema.properties as Obj),
      spec: { ...spec, properties: { ...(spec.properties as Obj), tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' } } },
    },
  };
  const base = { force: false, apiVersion: 'example.plat.io/v1', schema: granular };
  const first = apply(null, widget({ tags: ['a'] }), { ...base, manager: 'alice', now: time(0) });
  const live = { ...first.object, metadata: { ...(first.object.metadata as Obj), uid: 'u', managedFields: first.managedFields } };
  // Now atomic: alice's `v:"a"` becomes `.spec.tags`, and bob's change to the list conflicts.
  assert.throws(
    () => apply(live, widget({ tags: ['b'] }), { ...base, schema: tagsAtomic, manager: 'bob', now: time(1) }),
    (err: unknown) => err instanceof ApplyConflictError && err.conflicts[0]!.field === '.spec.tags',
  );
  // Back from atomic to granular: an owner of the whole list conflicts with no item change.
  const atomicFirst = apply(null, widget({ tags: ['a'] }), { ...base, schema: tagsAtomic, manager: 'alice', now: time(0) });
  const atomicLive = { ...atomicFirst.object, metadata: { ...(atomicFirst.object.metadata as Obj), uid: 'u', managedFields: atomicFirst.managedFields } };
  const result = apply(atomicLive, widget({ tags: ['b'] }), { ...base, manager: 'bob', now: time(1) });
  assert.deepEqual((result.object.spec as Obj).tags, ['a', 'b']);
});

test('recordUpdate: managedFields a client wrote are kept, re-encoded in upstream\'s order', () => {
  const live = widget({ replicas: 1, paused: true }, { uid: 'u' });
  const clientEntry = { manager: 'tool', operation: 'Update', apiVersion: 'example.plat.io/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } } };
  const out = recordUpdate(live, widget({ replicas: 1, paused: true }, { uid: 'u', managedFields: [clientEntry] }), {
    manager: 'kubectl-replace',
    apiVersion: 'example.plat.io/v1',
    now: time(1),
    schema: widgetSchema,
  });
  assert.equal(JSON.stringify(out), JSON.stringify([{ ...clientEntry, fieldsV1: { 'f:spec': { 'f:paused': {}, 'f:replicas': {} } } }]));
});

test('apply: a null in the intent unsets the field and is owned', () => {
  const first = apply(null, widget({ replicas: 1, paused: null, selector: { matchLabels: { a: 'b', c: null } } }), {
    manager: 'alice',
    force: false,
    apiVersion: 'example.plat.io/v1',
    now: time(0),
    schema: widgetSchema,
  });
  assert.deepEqual(first.object.spec, { replicas: 1, selector: { matchLabels: { a: 'b' } } });
  assert.deepEqual(first.managedFields[0]!.fieldsV1, fSpec({ 'f:paused': {}, 'f:replicas': {}, 'f:selector': {} }));
});

test('apply: a field the schema does not declare is never owned (decoding drops it), and reapplying it changes nothing', () => {
  const options = { manager: 'alice', force: false, apiVersion: 'example.plat.io/v1', schema: widgetSchema };
  const first = apply(null, widget({ replicas: 1, bogus: 2 }, {}, { stray: true }), { ...options, now: time(0) });
  assert.deepEqual(first.managedFields[0]!.fieldsV1, fSpec({ 'f:replicas': {} }));
  const { bogus: _bogus, ...spec } = first.object.spec as Obj;
  const { stray: _stray, ...stored } = { ...first.object, spec } as Obj;
  stored.metadata = { ...(stored.metadata as Obj), managedFields: first.managedFields };
  const again = apply(stored, widget({ replicas: 1, bogus: 2 }, {}, { stray: true }), { ...options, now: time(5) });
  assert.equal(again.managedFields[0]!.time, time(0));
});
