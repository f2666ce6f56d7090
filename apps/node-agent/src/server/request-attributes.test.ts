import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestAttributes } from './request-attributes.js';

// The kubelet's mapping of its paths to subresources of the node.
const cases: [string, string, string, string][] = [
  ['GET', '/pods', 'get', 'proxy'],
  ['GET', '/healthz', 'get', 'proxy'],
  ['GET', '/configz', 'get', 'proxy'],
  ['POST', '/exec/ns/pod/c', 'create', 'proxy'],
  ['GET', '/stats/summary', 'get', 'stats'],
  ['GET', '/stats', 'get', 'stats'],
  ['GET', '/metrics', 'get', 'metrics'],
  ['GET', '/metrics/cadvisor', 'get', 'metrics'],
  ['GET', '/metricsx', 'get', 'proxy'],
  ['GET', '/logs/', 'get', 'log'],
  ['GET', '/logs/syslog', 'get', 'log'],
  ['GET', '/logs', 'get', 'log'],
  ['GET', '/spec/', 'get', 'spec'],
  ['PUT', '/debug/flags/v', 'update', 'proxy'],
  ['PATCH', '/x', 'patch', 'proxy'],
  ['DELETE', '/x', 'delete', 'proxy'],
  ['OPTIONS', '/x', '', 'proxy'],
];
for (const [method, path, verb, subresource] of cases) {
  test(`request attributes: ${method} ${path} is ${verb || 'no verb'} nodes/${subresource}`, () => {
    assert.deepEqual(requestAttributes(method, path, 'worker-1'), { verb, resource: 'nodes', subresource, name: 'worker-1', path });
  });
}
