import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_WATCH_CACHE_SIZES, WatchCacheSizes, parseWatchCacheSizes, type WatchCacheSize } from './watch-cache-sizes.js';

const parsed: { name: string; entries: string[]; want: WatchCacheSize[] }[] = [
  { name: 'none', entries: [], want: [] },
  { name: 'a core resource', entries: ['configmaps#0'], want: [{ resource: 'configmaps', group: '', size: 0 }] },
  { name: 'a grouped resource: the group after the first dot', entries: ['events.events.k8s.io#0'], want: [{ resource: 'events', group: 'events.k8s.io', size: 0 }] },
  { name: 'any non-negative size, in order', entries: ['deployments.apps#65536', 'pods#100'], want: [{ resource: 'deployments', group: 'apps', size: 65536 }, { resource: 'pods', group: '', size: 100 }] },
  { name: 'a sign, as Go\'s Atoi takes it', entries: ['pods#+5', 'nodes#-0', 'secrets#007'], want: [{ resource: 'pods', group: '', size: 5 }, { resource: 'nodes', group: '', size: 0 }, { resource: 'secrets', group: '', size: 7 }] },
  { name: 'int64\'s largest', entries: ['pods#9223372036854775807'], want: [{ resource: 'pods', group: '', size: 9223372036854775807 }] },
];

for (const { name, entries, want } of parsed) {
  test(`watch cache sizes: ${name}`, () => assert.deepEqual(parseWatchCacheSizes(entries), want));
}

// Upstream's messages (k8s.io/apiserver server/options ParseWatchCacheSizes), the first bad entry named.
const refused: { name: string; entries: string[]; message: string }[] = [
  { name: 'no size', entries: ['deployments.apps#65536', 'replicasets.extensions'], message: 'invalid value of watch cache size: replicasets.extensions' },
  { name: 'two #', entries: ['pods#1#2'], message: 'invalid value of watch cache size: pods#1#2' },
  { name: 'an empty size', entries: ['pods#'], message: 'invalid size of watch cache size: pods#' },
  { name: 'not a number', entries: ['deployments.apps#65536', 'replicasets.extensions#655d1'], message: 'invalid size of watch cache size: replicasets.extensions#655d1' },
  { name: 'not an integer', entries: ['pods#1.5'], message: 'invalid size of watch cache size: pods#1.5' },
  { name: 'past int64', entries: ['pods#9223372036854775808'], message: 'invalid size of watch cache size: pods#9223372036854775808' },
  { name: 'negative', entries: ['deployments.apps#65536', 'replicasets.extensions#-65536'], message: 'watch cache size cannot be negative: replicasets.extensions#-65536' },
];

for (const { name, entries, message } of refused) {
  test(`watch cache sizes: ${name} is refused`, () => assert.throws(() => parseWatchCacheSizes(entries), { message }));
}

const decided: { name: string; entries: string[]; domain?: string; disabled: [string, string][]; cached: [string, string][] }[] = [
  { name: 'only 0 disables', entries: ['configmaps#0', 'secrets#100'], disabled: [['', 'configmaps']], cached: [['', 'secrets'], ['', 'pods']] },
  { name: 'the last entry for a resource wins', entries: ['configmaps#0', 'configmaps#5', 'secrets#5', 'secrets#0'], disabled: [['', 'secrets']], cached: [['', 'configmaps']] },
  { name: 'the group matters', entries: ['events#0'], disabled: [['', 'events']], cached: [['events.plat.io', 'events']] },
  {
    name: 'a group in the k8s.io form names the group under --api-domain',
    entries: ['roles.rbac.authorization.k8s.io#0'],
    disabled: [['rbac.authorization.plat.io', 'roles']],
    cached: [['rbac.authorization.k8s.io', 'roles']],
  },
  {
    name: 'the k8s.io form and the served form are one resource: the later wins',
    entries: ['events.events.k8s.io#0', 'events.events.plat.io#100'],
    cached: [['events.plat.io', 'events']],
    disabled: [],
  },
  { name: 'with --api-domain=k8s.io, as written', entries: ['roles.rbac.authorization.k8s.io#0'], domain: 'k8s.io', disabled: [['rbac.authorization.k8s.io', 'roles']], cached: [] },
  { name: 'custom resources are named the same way', entries: ['widgets.example.com#0'], disabled: [['example.com', 'widgets']], cached: [['example.org', 'widgets']] },
];

for (const { name, entries, domain = 'plat.io', disabled, cached } of decided) {
  test(`watch cache sizes: ${name}`, () => {
    const sizes = new WatchCacheSizes(parseWatchCacheSizes(entries), domain);
    for (const [group, resource] of disabled) assert.equal(sizes.disables(group, resource), true, `${resource}.${group} disabled`);
    for (const [group, resource] of cached) assert.equal(sizes.disables(group, resource), false, `${resource}.${group} cached`);
  });
}

test('watch cache sizes: kube-apiserver\'s defaults leave Events uncached in both groups unless the flag says otherwise', () => {
  const defaults = new WatchCacheSizes(DEFAULT_WATCH_CACHE_SIZES, 'plat.io');
  assert.equal(defaults.disables('', 'events'), true);
  assert.equal(defaults.disables('events.plat.io', 'events'), true);
  assert.equal(defaults.disables('', 'configmaps'), false);
  const overridden = new WatchCacheSizes([...DEFAULT_WATCH_CACHE_SIZES, ...parseWatchCacheSizes(['events#100'])], 'plat.io');
  assert.equal(overridden.disables('', 'events'), false);
  assert.equal(overridden.sizeOf('', 'events'), 100);
  assert.equal(overridden.disables('events.plat.io', 'events'), true);
});
