import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, update } from '../testing/harness.js';
import { serviceAccountDefinition, type ServiceAccount } from './service-account.js';

const sa = (extra: Partial<ServiceAccount> = {}): ServiceAccount => ({ metadata: { name: 'builder', namespace: 'default' }, ...extra });

const cases: { name: string; input: ServiceAccount; want: ServiceAccount }[] = [
  { name: 'an empty account', input: sa(), want: sa() },
  {
    name: 'all fields',
    input: sa({ automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }], secrets: [{ name: 'token' }] }),
    want: sa({ automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }], secrets: [{ name: 'token' }] }),
  },
  {
    name: 'secret references keep only their names',
    input: sa({ secrets: [{ name: 'a', namespace: 'other', kind: 'Secret', uid: 'u-1' }, { namespace: 'x' }] }),
    want: sa({ secrets: [{ name: 'a' }, {}] }),
  },
];

for (const c of cases) {
  test(`service account create: ${c.name}`, () => {
    const { object, errors } = create(serviceAccountDefinition, c.input);
    assert.deepEqual(errors, []);
    assert.deepEqual(object, c.want);
  });
}

test('service account update: secret references keep only their names', () => {
  const { object, errors } = update(serviceAccountDefinition, sa({ secrets: [{ name: 'b', apiVersion: 'v1' }] }), sa());
  assert.deepEqual(errors, []);
  assert.deepEqual(object.secrets, [{ name: 'b' }]);
});

test('service account: registration as upstream', () => {
  const d = serviceAccountDefinition;
  assert.equal(d.deleteReturnsObject, true);
  assert.equal(d.allowCreateOnUpdate, false);
  assert.deepEqual(d.shortNames, ['sa']);
  assert.equal(d.namespaced, true);
  assert.equal(d.verbs.length, 8);
  // The name is a DNS subdomain: the store's default.
  assert.equal('validateName' in d, false);
});

test('service account: columns NAME, SECRETS, AGE', () => {
  const object = sa({ secrets: [{ name: 'a' }, { name: 'b' }] });
  object.metadata.creationTimestamp = new Date(Date.now() - 3 * 3600_000).toISOString();
  const columns = serviceAccountDefinition.tableColumns;
  assert.deepEqual(columns.map((c) => c.name), ['Name', 'Secrets', 'Age']);
  assert.deepEqual(columns.map((c) => c.value(object, { domain: 'plat.io' })), ['builder', 2, '3h']);
  assert.equal(columns[1]!.value(sa(), { domain: 'plat.io' }), 0);
});
