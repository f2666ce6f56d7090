import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { listSemantic, parseResourceVersion, storeRevision, validateListQuery, type ListQuery } from './resource-version.js';

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
  { query: { resourceVersion: '5', limit: 2 }, want: { kind: 'exact', revision: 5n } },
  { query: { resourceVersion: '5', limit: 0 }, want: { kind: 'notOlderThan', revision: 5n } },
  { query: { resourceVersion: '5', limit: -1 }, want: { kind: 'notOlderThan', revision: 5n } },
  // Exact past what a double holds, and up to uint64, as upstream's ParseUint takes it.
  { query: { resourceVersion: '9007199254740993' }, want: { kind: 'notOlderThan', revision: 9007199254740993n } },
  { query: { resourceVersion: '18446744073709551615', resourceVersionMatch: 'Exact' }, want: { kind: 'exact', revision: 18446744073709551615n } },
];
for (const { query, want } of semantics) {
  test(`listSemantic: ${JSON.stringify(query)}`, () => assert.deepEqual(listSemantic(query), want));
}

test('parseResourceVersion: uint64 in base 10, exactly; anything else a 400', () => {
  assert.equal(parseResourceVersion('0'), 0n);
  assert.equal(parseResourceVersion('007'), 7n);
  assert.equal(parseResourceVersion('9007199254740993'), 9007199254740993n);
  assert.equal(parseResourceVersion('18446744073709551615'), 18446744073709551615n);
  for (const bad of ['18446744073709551616', '-1', '+1', ' 1', '1e3', '0x10', '', 'abc']) {
    assert.throws(
      () => parseResourceVersion(bad),
      (error: unknown) => isStatusError(error, 'BadRequest') && error.message === `invalid resource version: ${JSON.stringify(bad)}`,
      bad,
    );
  }
});

test('storeRevision: exact up to what a store holds, that bound past it', () => {
  assert.equal(storeRevision(5n), 5);
  assert.equal(storeRevision(9007199254740991n), 9007199254740991);
  assert.equal(storeRevision(9007199254740993n), Number.MAX_SAFE_INTEGER);
});
