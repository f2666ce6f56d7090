// The policies through the server: the feature gate and --runtime-config, a refusal's Status body,
// the Warning header, the audit annotation in the audit event, dry runs, the status the server
// writes (typeChecking), and who may name a paramKind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditEvent, AuditSink } from '@plat/audit';
import { startApiServer, type ApiTestServer } from '../../testing/index.js';
import { parseRuntimeConfig } from '../../runtime-config.js';

const GROUP = 'admissionregistration.plat.io';
const admin = { Authorization: 'Bearer t-admin' };
const alice = { Authorization: 'Bearer t-alice' };
const tokens = new Map([
  ['t-admin', { name: 'admin', uid: 'admin-uid', groups: ['system:masters'] }],
  ['t-alice', { name: 'alice', groups: ['system:authenticated'] }],
]);

const policy = {
  apiVersion: `${GROUP}/v1beta1`,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'sa-names' },
  spec: {
    matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['serviceaccounts'] }] },
    validations: [
      { expression: 'object.metadata.name.startsWith("app-")', message: 'names start with app-', reason: 'Forbidden' },
      // Never false at run time (the typo is not reached), but a warning for the type checker.
      { expression: 'object.metadata.name != "" || object.secretz == null', messageExpression: '"typo"' },
    ],
  },
};

const binding = (actions: string[]) => ({
  apiVersion: `${GROUP}/v1beta1`,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'sa-names' },
  spec: { policyName: 'sa-names', validationActions: actions },
});

async function start(gate: boolean, events: AuditEvent[] = []): Promise<ApiTestServer> {
  const auditSink: AuditSink = { write: (event) => void events.push(event), close: async () => {} };
  const api = await startApiServer(
    { auditSink, authentication: { tokens }, authorizationModes: ['RBAC'] },
    { runtimeConfig: parseRuntimeConfig(['admissionregistration.k8s.io/v1beta1=true']), validatingAdmissionPolicy: gate },
  );
  assert.equal((await api.send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }, admin)).status, 201);
  return api;
}

/** Polls `probe` until it gives something (the policies reach the plugin through a watch). */
async function eventually<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}

const account = (name: string) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });

test('policies through the server: Deny, dry run, Warn, Audit, and the status the server writes', async () => {
  const events: AuditEvent[] = [];
  const api = await start(true, events);
  const { send } = api;
  try {
    assert.equal((await send('POST', `/apis/${GROUP}/v1beta1/validatingadmissionpolicies`, policy, admin)).status, 201);
    assert.equal((await send('POST', `/apis/${GROUP}/v1beta1/validatingadmissionpolicybindings`, binding(['Deny']), admin)).status, 201);
    const denied = await eventually(async () => {
      const response = await send('POST', '/api/v1/namespaces/default/serviceaccounts?dryRun=All', account('web'), admin);
      return response.status === 201 ? undefined : response;
    });
    assert.equal(denied.status, 403);
    const message = "ValidatingAdmissionPolicy 'sa-names' with binding 'sa-names' denied request: names start with app-";
    assert.deepEqual(JSON.parse(denied.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `serviceaccounts "web" is forbidden: ${message}`,
      reason: 'Forbidden',
      details: { name: 'web', kind: 'serviceaccounts', causes: [{ message }] },
      code: 403,
    });
    assert.equal((await send('POST', '/api/v1/namespaces/default/serviceaccounts', account('app-web'), admin)).status, 201);

    // Warn: admitted, with the warning; Audit: the failure in the audit event.
    assert.equal((await send('PUT', `/apis/${GROUP}/v1beta1/validatingadmissionpolicybindings/sa-names`, { ...binding(['Warn', 'Audit']), metadata: { name: 'sa-names' } }, admin)).status, 200);
    const warned = await eventually(async () => {
      const response = await send('POST', '/api/v1/namespaces/default/serviceaccounts', account(`web-${Date.now()}`), admin);
      return response.status === 201 ? response : undefined;
    });
    assert.equal(warned.headers.warning, `299 - "Validation failed for ValidatingAdmissionPolicy 'sa-names' with binding 'sa-names': names start with app-"`);
    const key = 'validation.policy.admission.plat.io/validation_failure';
    const event = await eventually(async () => events.find((e) => e.objectRef?.resource === 'serviceaccounts' && e.verb === 'create' && e.annotations?.[key]));
    assert.deepEqual(JSON.parse(event.annotations![key]!), [
      { message: 'names start with app-', policy: 'sa-names', binding: 'sa-names', expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
    ]);

    // The server type-checks each generation against ServiceAccount's schema.
    const status = await eventually(async () => {
      const read = JSON.parse((await send('GET', `/apis/${GROUP}/v1beta1/validatingadmissionpolicies/sa-names`, undefined, admin)).body) as { status?: { observedGeneration?: number; typeChecking?: unknown } };
      return read.status?.observedGeneration === 1 ? read.status : undefined;
    });
    assert.deepEqual(status.typeChecking, {
      expressionWarnings: [
        {
          fieldRef: 'spec.validations[1].expression',
          warning: "/v1, Kind=ServiceAccount: ERROR: <input>:1:37: undefined field 'secretz'\n | object.metadata.name != \"\" || object.secretz == null\n | ....................................^\n",
        },
      ],
    });
  } finally {
    await api.server.shutdown();
  }
});

test('policies through the server: a user needs get on a paramKind to name it', async () => {
  const api = await start(true);
  try {
    const role = { apiVersion: 'rbac.authorization.plat.io/v1', kind: 'ClusterRole', metadata: { name: 'policy-writer' }, rules: [{ verbs: ['*'], apiGroups: [GROUP], resources: ['*'] }] };
    const bind = {
      apiVersion: 'rbac.authorization.plat.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'alice-policies' },
      roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: 'policy-writer' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.plat.io', name: 'alice' }],
    };
    assert.equal((await api.send('POST', '/apis/rbac.authorization.plat.io/v1/clusterroles', role, admin)).status, 201);
    assert.equal((await api.send('POST', '/apis/rbac.authorization.plat.io/v1/clusterrolebindings', bind, admin)).status, 201);
    const withParams = { ...policy, spec: { ...policy.spec, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } };
    const refused = await eventually(async () => {
      const response = await api.send('POST', `/apis/${GROUP}/v1beta1/validatingadmissionpolicies?dryRun=All`, withParams, alice);
      return response.status === 403 ? undefined : response;
    });
    assert.equal(refused.status, 422);
    assert.equal(
      (JSON.parse(refused.body) as { message: string }).message,
      'ValidatingAdmissionPolicy.admissionregistration.plat.io "sa-names" is invalid: spec.paramKind: Forbidden: user &{alice  [system:authenticated] map[]} must have "get" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)',
    );
    assert.equal((await api.send('POST', `/apis/${GROUP}/v1beta1/validatingadmissionpolicies?dryRun=All`, policy, alice)).status, 201);
  } finally {
    await api.server.shutdown();
  }
});

test('policies through the server: with the gate off the API is served and nothing enforced; with it on the API must be', async () => {
  const api = await start(false);
  try {
    assert.equal((await api.send('POST', `/apis/${GROUP}/v1beta1/validatingadmissionpolicies`, policy, admin)).status, 201);
    assert.equal((await api.send('POST', `/apis/${GROUP}/v1beta1/validatingadmissionpolicybindings`, binding(['Deny']), admin)).status, 201);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await api.send('POST', '/api/v1/namespaces/default/serviceaccounts', account('web'), admin)).status, 201);
  } finally {
    await api.server.shutdown();
  }
  await assert.rejects(
    startApiServer({}, { validatingAdmissionPolicy: true }),
    /the ValidatingAdmissionPolicy feature gate needs admissionregistration.plat.io\/v1beta1 or v1alpha1 served: add --runtime-config=admissionregistration.plat.io\/v1beta1=true/,
  );
  const off = await startApiServer();
  try {
    assert.equal((await off.send('GET', `/apis/${GROUP}/v1beta1/validatingadmissionpolicies`)).status, 404, 'off by default');
  } finally {
    await off.server.shutdown();
  }
});
