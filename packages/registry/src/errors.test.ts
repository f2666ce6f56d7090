import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '@plat/apimachinery';
import { StorageError, conflict, gone, goneContinuing, requestTooLarge } from '@plat/storage';
import { EXPIRED_CONTINUE_MESSAGE, EXPIRED_LIST_MESSAGE, INCONSISTENT_CONTINUE_MESSAGE, toStatusError, type ErrorContext } from './errors.js';

const groupResource = { group: '', resource: 'serviceaccounts' };

// Compacted history (a storage Gone) as upstream 1.28's etcd store answers a list: 410 Expired, with
// a token to resume at the latest revision when the expired read was a continued one.
const cases: { name: string; error: StorageError; context: Partial<ErrorContext>; want: Record<string, unknown> }[] = [
  {
    name: 'a list at a compacted revision (Exact, or a version with a limit)',
    error: gone(33, 40),
    context: {},
    want: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: EXPIRED_LIST_MESSAGE, reason: 'Expired', code: 410 },
  },
  {
    name: 'an expired continue token, with the token to resume at the latest revision',
    error: goneContinuing(gone(33, 40), 'resume-token'),
    context: { continuing: true },
    want: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: { continue: 'resume-token' },
      status: 'Failure',
      message: INCONSISTENT_CONTINUE_MESSAGE,
      reason: 'Expired',
      code: 410,
    },
  },
  {
    name: 'an expired continue token without a token to offer',
    error: gone(33, 40),
    context: { continuing: true },
    want: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: EXPIRED_CONTINUE_MESSAGE, reason: 'Expired', code: 410 },
  },
  {
    // A client's error, not storage being down: 413 rather than 503, so that no client retries it.
    name: 'a write larger than etcd takes',
    error: requestTooLarge('/registry/core/configmaps/default/big', 'etcdserver: request is too large'),
    context: {},
    want: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Request entity too large: the object is too large to store: etcdserver: request is too large',
      reason: 'RequestEntityTooLarge',
      code: 413,
    },
  },
];

for (const { name, error, context, want } of cases) {
  test(`toStatusError: ${name}`, () => {
    const status = toStatusError(error, { groupResource, ...context });
    assert.ok(status instanceof StatusError);
    assert.deepEqual(status.status, want);
    // Upstream's field order: metadata before status, code last.
    assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(status.status))), Object.keys(want));
  });
}

test('toStatusError: the expired-list message is upstream\u2019s, whole', () => {
  assert.equal(EXPIRED_LIST_MESSAGE, 'The resourceVersion for the provided list is too old.');
  assert.match(INCONSISTENT_CONTINUE_MESSAGE, /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results\./);
});

test('a precondition conflict names the object, not the storage key, even a key with colons in it', () => {
  const error = conflict('/rbac.authorization.k8s.io/clusterroles/system:aggregate-to-admin', 'Precondition failed: UID in precondition: x, UID in object meta: y');
  const status = (toStatusError(error, { groupResource: { group: 'rbac.authorization.k8s.io', resource: 'clusterroles' }, name: 'system:aggregate-to-admin' }) as StatusError).status;
  assert.equal(
    status.message,
    'Operation cannot be fulfilled on clusterroles.rbac.authorization.k8s.io "system:aggregate-to-admin": Precondition failed: UID in precondition: x, UID in object meta: y',
  );
});
