import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newRequestInfo, type RequestInfo } from './request-info.js';

type Want = Partial<RequestInfo>;

const cases: { method: string; url: string; want: Want }[] = [
  { method: 'GET', url: '/healthz', want: { isResourceRequest: false, verb: 'get', path: '/healthz' } },
  { method: 'POST', url: '/readyz/etcd', want: { isResourceRequest: false, verb: 'post' } },
  { method: 'GET', url: '/api/v1', want: { isResourceRequest: false, verb: 'get' } },
  { method: 'GET', url: '/apis/rbac.authorization.plat.io/v1', want: { isResourceRequest: false } },
  { method: 'GET', url: '/api/v1/namespaces', want: { isResourceRequest: true, verb: 'list', apiPrefix: 'api', apiVersion: 'v1', resource: 'namespaces', namespace: '' } },
  { method: 'GET', url: '/api/v1/namespaces/default', want: { verb: 'get', resource: 'namespaces', name: 'default', namespace: 'default' } },
  { method: 'PUT', url: '/api/v1/namespaces/default/status', want: { verb: 'update', resource: 'namespaces', name: 'default', subresource: 'status', namespace: 'default' } },
  { method: 'PUT', url: '/api/v1/namespaces/default/finalize', want: { verb: 'update', resource: 'namespaces', name: 'default', subresource: 'finalize' } },
  { method: 'GET', url: '/api/v1/namespaces/default/pods', want: { verb: 'list', namespace: 'default', resource: 'pods', name: '' } },
  { method: 'GET', url: '/api/v1/namespaces/default/pods?watch=true', want: { verb: 'watch', resource: 'pods' } },
  { method: 'GET', url: '/api/v1/namespaces/default/pods?watch=1', want: { verb: 'watch' } },
  { method: 'GET', url: '/api/v1/namespaces/default/pods?watch=false', want: { verb: 'list' } },
  { method: 'GET', url: '/api/v1/namespaces/default/pods?watch=yes', want: { verb: 'watch' } },
  { method: 'GET', url: '/api/v1/namespaces/default/pods/web-1', want: { verb: 'get', name: 'web-1', parts: ['pods', 'web-1'] } },
  { method: 'GET', url: '/api/v1/namespaces/default/pods/web-1/log', want: { verb: 'get', name: 'web-1', subresource: 'log' } },
  { method: 'POST', url: '/api/v1/namespaces/default/pods', want: { verb: 'create', resource: 'pods' } },
  { method: 'PATCH', url: '/api/v1/namespaces/default/pods/p', want: { verb: 'patch', name: 'p' } },
  { method: 'DELETE', url: '/api/v1/namespaces/default/pods/p', want: { verb: 'delete', name: 'p' } },
  { method: 'DELETE', url: '/api/v1/namespaces/default/pods', want: { verb: 'deletecollection', name: '' } },
  { method: 'OPTIONS', url: '/api/v1/namespaces/default/pods', want: { verb: '' } },
  { method: 'GET', url: '/api/v1/watch/namespaces/default/pods', want: { verb: 'watch', resource: 'pods', namespace: 'default' } },
  { method: 'GET', url: '/api/v1/watch/pods', want: { verb: 'watch', resource: 'pods', namespace: '' } },
  { method: 'GET', url: '/api/v1/proxy/namespaces/default/pods/p/a/b', want: { verb: 'proxy', name: 'p', subresource: '' } },
  {
    method: 'GET',
    url: '/apis/rbac.authorization.plat.io/v1/namespaces/ns/roles/admin',
    want: { isResourceRequest: true, apiPrefix: 'apis', apiGroup: 'rbac.authorization.plat.io', apiVersion: 'v1', namespace: 'ns', resource: 'roles', name: 'admin' },
  },
  { method: 'GET', url: '/apis/rbac.authorization.plat.io/v1/clusterroles', want: { verb: 'list', resource: 'clusterroles', namespace: '' } },
  { method: 'GET', url: '/apis/apps/v1/namespaces/ns/deployments/d/scale', want: { resource: 'deployments', name: 'd', subresource: 'scale' } },
  { method: 'GET', url: '/api/v1/nodes?fieldSelector=metadata.name%3Dnode-1', want: { verb: 'list', name: 'node-1' } },
  { method: 'GET', url: '/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse', want: { verb: 'list', name: '' } },
  { method: 'GET', url: '/api/v1/namespaces/default/secrets/a%3Ab', want: { name: 'a:b' } },
  { method: 'GET', url: '/api/v1/namespaces/default/secrets/bad%zz', want: { name: 'bad%zz' } },
  { method: 'GET', url: '/metrics/', want: { isResourceRequest: false } },
];

for (const { method, url, want } of cases) {
  test(`request info: ${method} ${url}`, () => {
    const parsed = new URL(url, 'https://localhost');
    const info = newRequestInfo(method, parsed.pathname, parsed.searchParams);
    for (const [key, value] of Object.entries(want)) {
      assert.deepEqual(info[key as keyof RequestInfo], value, key);
    }
  });
}
