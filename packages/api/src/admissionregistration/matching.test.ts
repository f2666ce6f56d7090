import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newNotFound } from '@plat/apimachinery';
import type { MatchResources, NamedRuleWithOperations } from './types.js';
import type { KubeObject } from '@plat/registry';
import { compileMatch, matches, type MatchRequest } from './matching.js';

const podRule: NamedRuleWithOperations = { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' };

const object = (labels?: Record<string, string>): KubeObject => ({ metadata: { name: 'web', namespace: 'shop', ...(labels && { labels }) } });

function request(change: Partial<MatchRequest> = {}, namespaceLabels: Record<string, string> | Error = { env: 'prod' }): MatchRequest {
  return {
    operation: 'CREATE',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    subresource: '',
    namespace: 'shop',
    name: 'web',
    object: object({ app: 'web' }),
    oldObject: undefined,
    namespaceLabels: async () => {
      if (namespaceLabels instanceof Error) throw namespaceLabels;
      return namespaceLabels;
    },
    equivalents: () => [],
    ...change,
  };
}

const match = (constraints: MatchResources, r: MatchRequest = request()) => matches(compileMatch({ namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent', ...constraints }), r);

const cases: { name: string; constraints: MatchResources; request?: MatchRequest; want: boolean }[] = [
  { name: 'a rule of the resource and operation', constraints: { resourceRules: [podRule] }, want: true },
  { name: 'another operation', constraints: { resourceRules: [podRule] }, request: request({ operation: 'DELETE' }), want: false },
  { name: 'every operation', constraints: { resourceRules: [{ ...podRule, operations: ['*'] }] }, request: request({ operation: 'DELETE' }), want: true },
  { name: 'another group', constraints: { resourceRules: [{ ...podRule, apiGroups: ['apps'] }] }, want: false },
  { name: 'any group and version', constraints: { resourceRules: [{ ...podRule, apiGroups: ['*'], apiVersions: ['*'] }] }, want: true },
  { name: 'a subresource is not its resource', constraints: { resourceRules: [podRule] }, request: request({ subresource: 'status' }), want: false },
  { name: 'resource/subresource', constraints: { resourceRules: [{ ...podRule, resources: ['pods/status'] }] }, request: request({ subresource: 'status' }), want: true },
  { name: '*/subresource', constraints: { resourceRules: [{ ...podRule, resources: ['*/status'] }] }, request: request({ subresource: 'status' }), want: true },
  { name: 'resource/* matches the resource itself', constraints: { resourceRules: [{ ...podRule, resources: ['pods/*'] }] }, want: true },
  { name: 'scope Namespaced, a namespaced request', constraints: { resourceRules: [{ ...podRule, scope: 'Namespaced' }] }, want: true },
  { name: 'scope Cluster, a namespaced request', constraints: { resourceRules: [{ ...podRule, scope: 'Cluster' }] }, want: false },
  {
    name: 'scope Cluster, a Namespace (its namespace is its own name)',
    constraints: { resourceRules: [{ ...podRule, resources: ['namespaces'], scope: 'Cluster' }] },
    request: request({ resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: 'shop', name: 'shop' }),
    want: true,
  },
  { name: 'resourceNames: the name', constraints: { resourceRules: [{ ...podRule, resourceNames: ['web'] }] }, want: true },
  { name: 'resourceNames: another name', constraints: { resourceRules: [{ ...podRule, resourceNames: ['db'] }] }, want: false },
  { name: 'excluded', constraints: { resourceRules: [podRule], excludeResourceRules: [{ ...podRule, resourceNames: ['web'] }] }, want: false },
  { name: 'not excluded', constraints: { resourceRules: [podRule], excludeResourceRules: [{ ...podRule, operations: ['DELETE'] }] }, want: true },
  { name: 'namespaceSelector: the namespace\'s labels', constraints: { resourceRules: [podRule], namespaceSelector: { matchLabels: { env: 'prod' } } }, want: true },
  { name: 'namespaceSelector: other labels', constraints: { resourceRules: [podRule], namespaceSelector: { matchLabels: { env: 'dev' } } }, want: false },
  {
    name: 'namespaceSelector: a cluster-scoped request always passes',
    constraints: { resourceRules: [{ ...podRule, resources: ['nodes'] }], namespaceSelector: { matchLabels: { env: 'dev' } } },
    request: request({ resource: { group: '', version: 'v1', resource: 'nodes' }, namespace: '' }),
    want: true,
  },
  {
    name: 'namespaceSelector: a Namespace created is judged by its new labels',
    constraints: { resourceRules: [{ ...podRule, resources: ['namespaces'] }], namespaceSelector: { matchLabels: { env: 'dev' } } },
    request: request({ resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: 'shop', name: 'shop', object: { metadata: { name: 'shop', labels: { env: 'dev' } } } }, new Error('not read')),
    want: true,
  },
  { name: 'objectSelector: the new object\'s labels', constraints: { resourceRules: [podRule], objectSelector: { matchLabels: { app: 'web' } } }, want: true },
  {
    name: 'objectSelector: the old object\'s labels',
    constraints: { resourceRules: [podRule], objectSelector: { matchLabels: { app: 'old' } } },
    request: request({ operation: 'UPDATE', oldObject: object({ app: 'old' }) }),
    want: true,
  },
  { name: 'objectSelector: neither', constraints: { resourceRules: [podRule], objectSelector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] } }, want: false },
  { name: 'no rules: everything', constraints: {}, want: true },
];

for (const c of cases) {
  test(`matching: ${c.name}`, async () => {
    assert.equal((await match(c.constraints, c.request)).matched, c.want);
  });
}

const eventsRule: NamedRuleWithOperations = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['events'], scope: '*' };
const viaEventsGroup = request({
  resource: { group: 'events.plat.io', version: 'v1', resource: 'events' },
  kind: { group: 'events.plat.io', version: 'v1', kind: 'Event' },
  equivalents: () => [
    { group: '', version: 'v1', resource: 'events', kind: { group: '', version: 'v1', kind: 'Event' } },
    { group: 'events.plat.io', version: 'v1', resource: 'events', kind: { group: 'events.plat.io', version: 'v1', kind: 'Event' } },
  ],
});

test('matching: matchPolicy Equivalent matches the same resource through another group, as that resource and kind', async () => {
  assert.deepEqual(await match({ resourceRules: [eventsRule], matchPolicy: 'Equivalent' }, viaEventsGroup), {
    matched: true,
    resource: { group: '', version: 'v1', resource: 'events' },
    kind: { group: '', version: 'v1', kind: 'Event' },
  });
});

test('matching: matchPolicy Exact does not', async () => {
  assert.deepEqual(await match({ resourceRules: [eventsRule], matchPolicy: 'Exact' }, viaEventsGroup), { matched: false });
});

test('matching: a namespace that cannot be read fails the request only where the rules select it', async () => {
  const gone = newNotFound({ group: '', resource: 'namespaces' }, 'shop');
  const selector = { env: 'prod' };
  await assert.rejects(match({ resourceRules: [podRule], namespaceSelector: { matchLabels: selector } }, request({}, gone)), /namespaces "shop" not found/);
  assert.equal((await match({ resourceRules: [{ ...podRule, apiGroups: ['apps'] }], namespaceSelector: { matchLabels: selector } }, request({}, gone))).matched, false);
});
