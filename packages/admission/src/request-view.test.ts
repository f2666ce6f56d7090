import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newNotFound } from '@plat/apimachinery';
import { resolveResource, type AdmissionAttributes, type KubeObject, type ResourceDefinition } from '@plat/registry';
import { AdmissionRequestView, type RequestViewSources } from './request-view.js';

const resolved = (group: string, version: string, resource: string, kind: string) =>
  resolveResource({ group, version, kind, resource, namespaced: true, schema: {} } as unknown as ResourceDefinition, 'plat.io');
const widgetsV1 = resolved('example.com', 'v1', 'widgets', 'Widget');

function sources(log: string[]): RequestViewSources {
  return {
    peekNamespace: async (name) => {
      log.push(`peek ${name}`);
      throw newNotFound({ group: '', resource: 'namespaces' }, name);
    },
    getNamespace: async (name) => {
      log.push(`get ${name}`);
      return { metadata: { name, labels: { team: 'a' } } };
    },
    equivalents: (resource) => {
      log.push(`equivalents ${resource.resource}`);
      return [{ group: 'example.com', version: 'v2', resource: 'widgets', kind: { group: 'example.com', version: 'v2', kind: 'Widget' } }];
    },
    convert: async (object, _from, to) => {
      log.push(`convert to ${to.version}`);
      return { ...object, apiVersion: `${to.group}/${to.version}` };
    },
  };
}

const write: AdmissionAttributes = {
  uid: 'the-uid',
  operation: 'UPDATE',
  resource: widgetsV1,
  kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
  namespace: 'shop',
  name: 'w',
  object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } } as KubeObject,
  oldObject: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } } as KubeObject,
  dryRun: true,
  user: { name: 'alice', uid: 'u1', groups: ['devs'], extra: { scopes: ['x'] } },
  options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' },
};

test("the AdmissionRequest as upstream builds it: a policy's without objects, a webhook's with them and the uid", async () => {
  const view = new AdmissionRequestView(write, sources([]));
  const own = { group: 'example.com', version: 'v1', resource: 'widgets' };
  const ownKind = { group: 'example.com', version: 'v1', kind: 'Widget' };
  const forPolicy = {
    kind: ownKind,
    resource: own,
    requestKind: ownKind,
    requestResource: own,
    name: 'w',
    namespace: 'shop',
    operation: 'UPDATE',
    userInfo: { username: 'alice', uid: 'u1', groups: ['devs'], extra: { scopes: ['x'] } },
    dryRun: true,
    options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' },
  };
  assert.deepEqual(view.admissionRequest(), forPolicy);
  // Seen as an equivalent version: its kind and resource, the request's own beside them, the objects converted.
  const v2 = { resource: { group: 'example.com', version: 'v2', resource: 'widgets' }, kind: { group: 'example.com', version: 'v2', kind: 'Widget' } };
  const forWebhook = await view.reviewRequest(v2);
  assert.equal(forWebhook.uid, 'the-uid');
  assert.deepEqual([forWebhook.kind, forWebhook.resource, forWebhook.requestKind, forWebhook.requestResource], [v2.kind, v2.resource, ownKind, own]);
  assert.equal((forWebhook.object as KubeObject).apiVersion, 'example.com/v2');
  assert.equal((forWebhook.oldObject as KubeObject).apiVersion, 'example.com/v2');
});

test('the namespace is read once, from storage where the cache has not seen it; equivalents found once; conversions kept per version', async () => {
  const log: string[] = [];
  const view = new AdmissionRequestView(write, sources(log));
  assert.deepEqual(await view.namespaceLabels(), { team: 'a' });
  assert.deepEqual((await view.namespaceObject())?.metadata.name, 'shop');
  view.equivalents();
  view.equivalents();
  const v2 = { group: 'example.com', version: 'v2', resource: 'widgets' };
  await view.objectsAs(v2);
  await view.objectsAs(v2);
  assert.deepEqual((await view.objectsAs({ group: 'example.com', version: 'v1', resource: 'widgets' })).object, write.object, 'its own version: not converted');
  assert.deepEqual(log, ['peek shop', 'get shop', 'equivalents widgets', 'convert to v2', 'convert to v2']);
});

test("a Namespace's namespace is its own name, with no namespace object; the server's own writes are the loopback user's", async () => {
  const namespaces = resolveResource({ group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false, schema: {} } as unknown as ResourceDefinition, 'plat.io');
  const { user: _user, ...bootstrap } = write;
  const view = new AdmissionRequestView({ ...bootstrap, resource: namespaces, kind: { group: '', version: 'v1', kind: 'Namespace' }, namespace: '', name: 'team-a' }, sources([]));
  assert.equal(view.namespace, 'team-a');
  assert.equal(await view.namespaceObject(), undefined);
  assert.deepEqual(view.user, { name: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] });
});
