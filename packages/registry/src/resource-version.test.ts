import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { listSemantic, validateListQuery, type ListQuery } from './resource-version.js';

// Upstream's validateWatchOptions with and without the WatchList feature gate: the causes of the
// 422 (ListOptions.meta.<domain>) as `field: message`, or none.
const cases: { name: string; query: ListQuery; watchList: boolean; want: string[] }[] = [
  {
    name: 'sendInitialEvents=true without WatchList',
    query: { watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' },
    watchList: false,
    want: ['sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'],
  },
  {
    name: 'sendInitialEvents=false without WatchList (any value is refused)',
    query: { watch: true, sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' },
    watchList: false,
    want: ['sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'],
  },
  {
    name: 'sendInitialEvents without NotOlderThan and without WatchList: both, the match first',
    query: { watch: true, sendInitialEvents: true },
    watchList: false,
    want: [
      'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
    ],
  },
  { name: 'sendInitialEvents with WatchList', query: { watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }, watchList: true, want: [] },
  { name: 'a plain watch without WatchList', query: { watch: true, resourceVersion: '0' }, watchList: false, want: [] },
  // Upstream's ValidateListOptions has no rule for limit: below 1 it lists everything.
  { name: 'a negative limit', query: { limit: -1 }, watchList: false, want: [] },
  {
    name: 'sendInitialEvents on a list, gate or not',
    query: { sendInitialEvents: true },
    watchList: true,
    want: ['sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
  },
];

for (const { name, query, watchList, want } of cases) {
  test(`validateListQuery: ${name}`, () => {
    let causes: string[] = [];
    try {
      validateListQuery(query, 'plat.io', watchList);
    } catch (error) {
      assert.ok(isStatusError(error, 'Invalid'), String(error));
      assert.equal(error.status.details?.kind, 'ListOptions');
      assert.equal(error.status.details?.group, 'meta.plat.io');
      causes = (error.status.details?.causes ?? []).map((cause) => `${cause.field}: ${cause.message}`);
    }
    assert.deepEqual(causes, want);
  });
}

const semantics: { query: ListQuery; want: ReturnType<typeof listSemantic> }[] = [
  { query: { resourceVersion: '5', limit: 2 }, want: { kind: 'exact', revision: 5 } },
  { query: { resourceVersion: '5', limit: 0 }, want: { kind: 'notOlderThan', revision: 5 } },
  { query: { resourceVersion: '5', limit: -1 }, want: { kind: 'notOlderThan', revision: 5 } },
];
for (const { query, want } of semantics) {
  test(`listSemantic: ${JSON.stringify(query)}`, () => assert.deepEqual(listSemantic(query), want));
}
