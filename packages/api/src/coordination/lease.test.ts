import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, messages, summary, update } from '../testing/harness.js';
import type { Lease, LeaseSpec } from '@plat/apimachinery';
import { formatMicroTime, leaseDefinition } from './lease.js';

const lease = (spec?: LeaseSpec): Lease => ({ metadata: { name: 'plat-controller-manager', namespace: 'plat-system' }, ...(spec && { spec }) });

const validCases: { name: string; spec?: LeaseSpec }[] = [
  { name: 'no spec' },
  { name: 'an empty spec', spec: {} },
  {
    name: 'a held lease',
    spec: { holderIdentity: 'host_1', leaseDurationSeconds: 15, acquireTime: '2024-05-01T10:00:00.000000Z', renewTime: '2024-05-01T10:00:02.500000Z', leaseTransitions: 0 },
  },
  { name: 'one second', spec: { leaseDurationSeconds: 1 } },
  { name: 'many transitions', spec: { leaseTransitions: 2147483647 } },
];
for (const c of validCases) {
  test(`lease validate: ${c.name} is valid`, () => assert.deepEqual(create(leaseDefinition, lease(c.spec)).errors, []));
}

const invalidCases: { name: string; spec: LeaseSpec; want: string[] }[] = [
  { name: 'a zero duration', spec: { leaseDurationSeconds: 0 }, want: ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0'] },
  { name: 'a negative duration', spec: { leaseDurationSeconds: -3 }, want: ['spec.leaseDurationSeconds: Invalid value: -3: must be greater than 0'] },
  {
    name: 'negative transitions',
    spec: { leaseTransitions: -1 },
    want: ['spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0'],
  },
  {
    name: 'both at once',
    spec: { leaseDurationSeconds: 0, leaseTransitions: -1 },
    want: [
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
    ],
  },
];
for (const c of invalidCases) {
  test(`lease validate: ${c.name}`, () => {
    assert.deepEqual(messages(create(leaseDefinition, lease(c.spec)).errors), c.want);
    // An update is checked by the same rules; nothing of a lease is immutable.
    assert.deepEqual(messages(update(leaseDefinition, lease(c.spec), lease({ holderIdentity: 'a' })).errors), c.want);
  });
}

test('lease update: every field may change', () => {
  const old = lease({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0, acquireTime: '2024-05-01T10:00:00.000000Z' });
  const next = lease({ holderIdentity: 'b', leaseDurationSeconds: 30, leaseTransitions: 1, acquireTime: '2024-05-01T10:01:00.000000Z' });
  assert.deepEqual(summary(update(leaseDefinition, next, old).errors), []);
});

const microTimeCases: { name: string; input: string; want: string }[] = [
  { name: 'already a MicroTime', input: '2024-05-01T10:00:00.123456Z', want: '2024-05-01T10:00:00.123456Z' },
  { name: 'no fraction', input: '2024-05-01T10:00:00Z', want: '2024-05-01T10:00:00.000000Z' },
  { name: 'milliseconds', input: '2024-05-01T10:00:00.120Z', want: '2024-05-01T10:00:00.120000Z' },
  { name: 'nanoseconds are truncated', input: '2024-05-01T10:00:00.123456789Z', want: '2024-05-01T10:00:00.123456Z' },
  { name: 'an offset becomes UTC', input: '2024-05-01T12:30:00.5+02:30', want: '2024-05-01T10:00:00.500000Z' },
  { name: 'a lower-case z', input: '2024-05-01t10:00:00z', want: '2024-05-01T10:00:00.000000Z' },
  { name: 'across midnight', input: '2024-05-01T01:00:00-03:00', want: '2024-05-01T04:00:00.000000Z' },
  { name: 'not a time is left alone', input: 'yesterday', want: 'yesterday' },
];
for (const c of microTimeCases) {
  test(`lease MicroTime: ${c.name}`, () => assert.equal(formatMicroTime(c.input), c.want));
}

test('lease create: times are stored as MicroTimes', () => {
  const { object } = create(leaseDefinition, lease({ acquireTime: '2024-05-01T10:00:00Z', renewTime: '2024-05-01T10:00:01.5Z' }));
  assert.deepEqual(object.spec, { acquireTime: '2024-05-01T10:00:00.000000Z', renewTime: '2024-05-01T10:00:01.500000Z' });
});

test('lease: registration as upstream', () => {
  const d = leaseDefinition;
  assert.equal(d.group, 'coordination.{domain}');
  assert.equal(d.version, 'v1');
  assert.equal(d.resource, 'leases');
  assert.equal(d.namespaced, true);
  // A PUT to a missing lease creates it, as upstream's leaseStrategy allows.
  assert.equal(d.allowCreateOnUpdate, true);
  assert.equal(d.verbs.length, 8);
  assert.equal('shortNames' in d, false);
  assert.equal('validateName' in d, false);
});

test('lease: columns NAME, HOLDER, AGE', () => {
  const object = lease({ holderIdentity: 'node-1' });
  object.metadata.creationTimestamp = new Date(Date.now() - 90_000).toISOString();
  const columns = leaseDefinition.tableColumns;
  assert.deepEqual(columns.map((c) => c.name), ['Name', 'Holder', 'Age']);
  assert.deepEqual(columns.map((c) => c.value(object, { domain: 'plat.io' })), ['plat-controller-manager', 'node-1', '90s']);
  assert.equal(columns[1]!.value(lease(), { domain: 'plat.io' }), '<unknown>');
});
