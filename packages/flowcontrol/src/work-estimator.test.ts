import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateWork, type ObjectCount, type RequestDescription } from './work-estimator.js';

// Upstream's request/width_test.go TestWorkEstimator, case by case (its "no RequestInfo" cases have
// no counterpart: a description always says what the request is). Upstream runs it with the
// WatchList gate on; so does this table.
interface Row {
  name: string;
  uri: string;
  verb: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  objName?: string;
  counts?: Record<string, number>;
  countErr?: Exclude<ObjectCount, number>;
  watchCount?: number;
  maxSeats?: number;
  initial: number;
  final?: number;
  latencyMs?: number;
}

const rows: Row[] = [
  { name: 'request verb is not list', uri: '/apis/', verb: 'get', maxSeats: 10, initial: 1 },
  { name: 'list, conversion to ListOptions returns error', uri: '/apis/foo.bar/v1/events?limit=invalid', verb: 'list', counts: { 'events.foo.bar': 799 }, maxSeats: 10, initial: 10 },
  { name: 'list, has limit and resource version is 1', uri: '/apis/foo.bar/v1/events?limit=399&resourceVersion=1', verb: 'list', counts: { 'events.foo.bar': 699 }, maxSeats: 10, initial: 8 },
  { name: 'list, limit not set', uri: '/apis/foo.bar/v1/events?resourceVersion=1', verb: 'list', counts: { 'events.foo.bar': 699 }, maxSeats: 10, initial: 7 },
  { name: 'list, resource version not set', uri: '/apis/foo.bar/v1/events?limit=399', verb: 'list', counts: { 'events.foo.bar': 699 }, maxSeats: 10, initial: 8 },
  { name: 'list, no query parameters, count known', uri: '/apis/foo.bar/v1/events', verb: 'list', counts: { 'events.foo.bar': 399 }, maxSeats: 10, initial: 8 },
  { name: 'list, no query parameters, count not known', uri: '/apis/foo.bar/v1/events', verb: 'list', countErr: 'not-found', maxSeats: 10, initial: 1 },
  { name: 'list, continuation is set', uri: '/apis/foo.bar/v1/events?continue=token&limit=399', verb: 'list', counts: { 'events.foo.bar': 699 }, maxSeats: 10, initial: 8 },
  { name: 'list, resource version is zero', uri: '/apis/foo.bar/v1/events?limit=299&resourceVersion=0', verb: 'list', counts: { 'events.foo.bar': 399 }, maxSeats: 10, initial: 4 },
  { name: 'list, resource version is zero, no limit', uri: '/apis/foo.bar/v1/events?resourceVersion=0', verb: 'list', counts: { 'events.foo.bar': 799 }, initial: 8 },
  { name: 'list, resource version match is Exact', uri: '/apis/foo.bar/v1/events?resourceVersion=foo&resourceVersionMatch=Exact&limit=399', verb: 'list', counts: { 'events.foo.bar': 699 }, maxSeats: 10, initial: 8 },
  { name: 'list, resource version match is NotOlderThan, limit not specified', uri: '/apis/foo.bar/v1/events?resourceVersion=foo&resourceVersionMatch=NotOlderThan', verb: 'list', counts: { 'events.foo.bar': 799 }, maxSeats: 10, initial: 8 },
  { name: 'list, maximum is capped', uri: '/apis/foo.bar/v1/events?resourceVersion=foo', verb: 'list', counts: { 'events.foo.bar': 1999 }, maxSeats: 10, initial: 10 },
  { name: 'list, maximum is capped, lower max seats', uri: '/apis/foo.bar/v1/events?resourceVersion=foo', verb: 'list', counts: { 'events.foo.bar': 1999 }, maxSeats: 5, initial: 5 },
  { name: 'list, list from cache, count not known', uri: '/apis/foo.bar/v1/events?resourceVersion=0&limit=799', verb: 'list', countErr: 'not-found', maxSeats: 10, initial: 1 },
  { name: 'list, object count is stale', uri: '/apis/foo.bar/v1/events?limit=499', verb: 'list', counts: { 'events.foo.bar': 799 }, countErr: 'stale', maxSeats: 10, initial: 10 },
  { name: 'list, object count is not found', uri: '/apis/foo.bar/v1/events?limit=499', verb: 'list', countErr: 'not-found', maxSeats: 10, initial: 1 },
  { name: 'list, count getter throws unknown error', uri: '/apis/foo.bar/v1/events?limit=499', verb: 'list', countErr: 'error', maxSeats: 10, initial: 10 },
  { name: 'list, metadata.name specified', uri: '/apis/foo.bar/v1/events?fieldSelector=metadata.name%3Dtest', verb: 'list', objName: 'test', counts: { 'events.foo.bar': 799 }, maxSeats: 10, initial: 1 },
  { name: 'list, metadata.name, resourceVersion and limit specified', uri: '/apis/foo.bar/v1/events?fieldSelector=metadata.name%3Dtest&limit=500&resourceVersion=0', verb: 'list', objName: 'test', counts: { 'events.foo.bar': 799 }, maxSeats: 10, initial: 1 },
  { name: 'watch, sendInitialEvents is nil', uri: '/apis/foo.bar/v1/events?watch=true', verb: 'watch', counts: { 'events.foo.bar': 799 }, initial: 1 },
  { name: 'watch, sendInitialEvents is false', uri: '/apis/foo.bar/v1/events?watch=true&sendInitialEvents=false', verb: 'watch', counts: { 'events.foo.bar': 799 }, initial: 1 },
  { name: 'watch, sendInitialEvents is true', uri: '/apis/foo.bar/v1/events?watch=true&sendInitialEvents=true', verb: 'watch', counts: { 'events.foo.bar': 799 }, initial: 8 },
  { name: 'create, no watches', uri: '/apis/foo.bar/v1/foos', verb: 'create', resource: 'foos', maxSeats: 10, initial: 1, final: 0, latencyMs: 0 },
  { name: 'create, watches registered', uri: '/apis/foo.bar/v1/foos', verb: 'create', resource: 'foos', watchCount: 29, maxSeats: 10, initial: 1, final: 3, latencyMs: 5 },
  { name: 'create, watches registered, no additional latency', uri: '/apis/foo.bar/v1/foos', verb: 'create', resource: 'foos', watchCount: 5, maxSeats: 10, initial: 1, final: 0, latencyMs: 0 },
  { name: 'create, watches registered, maximum is capped', uri: '/apis/foo.bar/v1/foos', verb: 'create', resource: 'foos', watchCount: 199, maxSeats: 10, initial: 1, final: 10, latencyMs: 10 },
  { name: 'update, no watches', uri: '/apis/foo.bar/v1/foos/myfoo', verb: 'update', resource: 'foos', maxSeats: 10, initial: 1, final: 0, latencyMs: 0 },
  { name: 'update, watches registered', uri: '/apis/foor.bar/v1/foos/myfoo', verb: 'update', resource: 'foos', watchCount: 29, maxSeats: 10, initial: 1, final: 3, latencyMs: 5 },
  { name: 'patch, no watches', uri: '/apis/foo.bar/v1/foos/myfoo', verb: 'patch', resource: 'foos', maxSeats: 10, initial: 1, final: 0, latencyMs: 0 },
  { name: 'patch, watches registered', uri: '/apis/foo.bar/v1/foos/myfoo', verb: 'patch', resource: 'foos', watchCount: 29, maxSeats: 10, initial: 1, final: 3, latencyMs: 5 },
  { name: 'patch, watches registered, lower max seats', uri: '/apis/foo.bar/v1/foos/myfoo', verb: 'patch', resource: 'foos', watchCount: 100, maxSeats: 5, initial: 1, final: 5, latencyMs: 10 },
  { name: 'delete, no watches', uri: '/apis/foo.bar/v1/foos/myfoo', verb: 'delete', resource: 'foos', maxSeats: 10, initial: 1, final: 0, latencyMs: 0 },
  { name: 'delete, watches registered', uri: '/apis/foo.bar/v1/foos/myfoo', verb: 'delete', resource: 'foos', watchCount: 29, maxSeats: 10, initial: 1, final: 3, latencyMs: 5 },
  { name: 'creating token for service account', uri: '/api/v1/namespaces/foo/serviceaccounts/default/token', verb: 'create', apiGroup: 'v1', resource: 'serviceaccounts', subresource: 'token', watchCount: 5777, maxSeats: 10, initial: 1, final: 0, latencyMs: 0 },
  { name: 'creating service account', uri: '/api/v1/namespaces/foo/serviceaccounts', verb: 'create', apiGroup: 'v1', resource: 'serviceaccounts', watchCount: 1000, maxSeats: 10, initial: 1, final: 10, latencyMs: 50 },
];

describe('work estimation (upstream width_test.go TestWorkEstimator)', () => {
  for (const row of rows) {
    test(row.name, () => {
      const request: RequestDescription = {
        verb: row.verb,
        apiGroup: row.apiGroup ?? 'foo.bar',
        resource: row.resource ?? 'events',
        subresource: row.subresource ?? '',
        namespace: '',
        name: row.objName ?? '',
        query: new URL(`http://server${row.uri}`).searchParams,
      };
      const got = estimateWork(request, 'testPL', {
        objectCount: (key) => row.countErr ?? row.counts?.[key] ?? 0,
        watchCount: () => row.watchCount ?? 0,
        maxSeats: () => row.maxSeats ?? 0,
        watchList: true,
      });
      assert.deepEqual(got, { initialSeats: row.initial, finalSeats: row.final ?? 0, additionalLatencyMs: row.latencyMs ?? 0 });
    });
  }

  test('with the WatchList gate off (1.28\'s default) a watch is one seat, whatever it asks', () => {
    const request: RequestDescription = { verb: 'watch', apiGroup: '', resource: 'pods', subresource: '', namespace: '', name: '', query: new URLSearchParams('watch=true&sendInitialEvents=true') };
    assert.deepEqual(estimateWork(request, 'pl', { objectCount: () => 5000, watchCount: () => 0, maxSeats: () => 0 }), { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  });

  test('a core resource is counted by its bare name; a list of 5,000 from etcd with no selector is 2·5000/100 = 100, capped at 10', () => {
    const keys: string[] = [];
    const request: RequestDescription = { verb: 'list', apiGroup: '', resource: 'configmaps', subresource: '', namespace: 'ns', name: '', query: new URLSearchParams() };
    const got = estimateWork(request, 'pl', { objectCount: (k) => (keys.push(k), 5000), watchCount: () => 0, maxSeats: () => 0 });
    assert.deepEqual(keys, ['configmaps']);
    assert.equal(got.initialSeats, 10);
    // An empty limit= does not parse as an integer: bad options, the level's max seats.
    assert.equal(estimateWork({ ...request, query: new URLSearchParams('limit=') }, 'pl', { objectCount: () => 10, watchCount: () => 0, maxSeats: () => 3 }).initialSeats, 3);
  });
});
