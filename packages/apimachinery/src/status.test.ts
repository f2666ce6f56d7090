import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  StatusError,
  isStatusError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenericServerResponse,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotAcceptable,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newTimeout,
  newTooManyRequests,
  newUnauthorized,
  newUnsupportedMediaType,
  type Status,
} from './status.js';
import { invalid, newPath, required } from './field-errors.js';

const namespaces = { group: '', resource: 'namespaces' };
const roles = { group: 'rbac.authorization.plat.io', resource: 'roles' };

const cases: { name: string; error: StatusError; want: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'> }[] = [
  {
    name: 'not found, core group',
    error: newNotFound(namespaces, 'foo'),
    want: { message: 'namespaces "foo" not found', reason: 'NotFound', details: { name: 'foo', kind: 'namespaces' }, code: 404 },
  },
  {
    name: 'not found, named group',
    error: newNotFound(roles, 'x'),
    want: {
      message: 'roles.rbac.authorization.plat.io "x" not found',
      reason: 'NotFound',
      details: { name: 'x', group: 'rbac.authorization.plat.io', kind: 'roles' },
      code: 404,
    },
  },
  {
    name: 'already exists',
    error: newAlreadyExists(namespaces, 'foo'),
    want: { message: 'namespaces "foo" already exists', reason: 'AlreadyExists', details: { name: 'foo', kind: 'namespaces' }, code: 409 },
  },
  {
    name: 'conflict',
    error: newConflict(roles, 'x', new Error('the object has been modified; please apply your changes to the latest version and try again')),
    want: {
      message:
        'Operation cannot be fulfilled on roles.rbac.authorization.plat.io "x": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'x', group: 'rbac.authorization.plat.io', kind: 'roles' },
      code: 409,
    },
  },
  { name: 'bad request', error: newBadRequest('bad'), want: { message: 'bad', reason: 'BadRequest', code: 400 } },
  { name: 'unauthorized', error: newUnauthorized('Unauthorized'), want: { message: 'Unauthorized', reason: 'Unauthorized', code: 401 } },
  { name: 'unauthorized, empty message', error: newUnauthorized(''), want: { message: 'not authorized', reason: 'Unauthorized', code: 401 } },
  {
    name: 'forbidden, no resource',
    error: newForbidden({ group: '', resource: '' }, '', new Error('User "bob" cannot get path "/healthz"')),
    want: { message: 'forbidden: User "bob" cannot get path "/healthz"', reason: 'Forbidden', details: {}, code: 403 },
  },
  {
    name: 'forbidden, collection',
    error: newForbidden(namespaces, '', new Error('nope')),
    want: { message: 'namespaces is forbidden: nope', reason: 'Forbidden', details: { kind: 'namespaces' }, code: 403 },
  },
  {
    name: 'forbidden, named object',
    error: newForbidden(roles, 'x', 'nope'),
    want: {
      message: 'roles.rbac.authorization.plat.io "x" is forbidden: nope',
      reason: 'Forbidden',
      details: { name: 'x', group: 'rbac.authorization.plat.io', kind: 'roles' },
      code: 403,
    },
  },
  {
    name: 'method not supported',
    error: newMethodNotSupported(namespaces, 'patch'),
    want: { message: 'patch is not supported on resources of kind "namespaces"', reason: 'MethodNotAllowed', details: { kind: 'namespaces' }, code: 405 },
  },
  {
    name: 'not acceptable',
    error: newNotAcceptable(['application/json', 'application/yaml']),
    want: { message: 'only the following media types are accepted: application/json, application/yaml', reason: 'NotAcceptable', code: 406 },
  },
  {
    name: 'unsupported media type',
    error: newUnsupportedMediaType(['application/json']),
    want: {
      message: 'the body of the request was in an unknown format - accepted media types include: application/json',
      reason: 'UnsupportedMediaType',
      code: 415,
    },
  },
  { name: 'gone', error: newGone('too old resource version: 1 (5)'), want: { message: 'too old resource version: 1 (5)', reason: 'Gone', code: 410 } },
  {
    name: 'resource expired',
    error: newResourceExpired('The provided continue parameter is too old'),
    want: { message: 'The provided continue parameter is too old', reason: 'Expired', code: 410 },
  },
  {
    name: 'timeout',
    error: newTimeout('request did not complete within 60s', 1),
    want: { message: 'Timeout: request did not complete within 60s', reason: 'Timeout', details: { retryAfterSeconds: 1 }, code: 504 },
  },
  {
    name: 'server timeout',
    error: newServerTimeout(namespaces, 'create', 2),
    want: {
      message: 'The create operation against namespaces could not be completed at this time, please try again.',
      reason: 'ServerTimeout',
      details: { name: 'create', kind: 'namespaces', retryAfterSeconds: 2 },
      code: 500,
    },
  },
  {
    name: 'too many requests',
    error: newTooManyRequests('too many requests, please try again later', 1),
    want: { message: 'too many requests, please try again later', reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429 },
  },
  {
    name: 'request entity too large',
    error: newRequestEntityTooLarge('limit is 3145728'),
    want: { message: 'Request entity too large: limit is 3145728', reason: 'RequestEntityTooLarge', code: 413 },
  },
  {
    name: 'internal error',
    error: newInternalError(new Error('boom')),
    want: { message: 'Internal error occurred: boom', reason: 'InternalError', details: { causes: [{ message: 'boom' }] }, code: 500 },
  },
  {
    name: 'service unavailable',
    error: newServiceUnavailable('storage is down'),
    want: { message: 'storage is down', reason: 'ServiceUnavailable', code: 503 },
  },
  {
    name: 'invalid, one field error',
    error: newInvalid({ group: '', kind: 'Namespace' }, 'Foo', [invalid(newPath('metadata', 'name'), 'Foo', 'must be lowercase')]),
    want: {
      message: 'Namespace "Foo" is invalid: metadata.name: Invalid value: "Foo": must be lowercase',
      reason: 'Invalid',
      details: {
        name: 'Foo',
        kind: 'Namespace',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "Foo": must be lowercase', field: 'metadata.name' }],
      },
      code: 422,
    },
  },
  {
    name: 'invalid, several field errors, duplicates dropped from the message',
    error: newInvalid({ group: 'rbac.authorization.plat.io', kind: 'Role' }, 'x', [
      required(newPath('rules').index(0).child('verbs')),
      required(newPath('rules').index(0).child('verbs')),
      required(newPath('metadata', 'namespace')),
    ]),
    want: {
      message: 'Role.rbac.authorization.plat.io "x" is invalid: [rules[0].verbs: Required value, metadata.namespace: Required value]',
      reason: 'Invalid',
      details: {
        name: 'x',
        group: 'rbac.authorization.plat.io',
        kind: 'Role',
        causes: [
          { reason: 'FieldValueRequired', message: 'Required value', field: 'rules[0].verbs' },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'rules[0].verbs' },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.namespace' },
        ],
      },
      code: 422,
    },
  },
  {
    name: 'invalid, no field errors',
    error: newInvalid({ group: '', kind: 'Pod' }, 'p', []),
    want: { message: 'Pod "p" is invalid', reason: 'Invalid', details: { name: 'p', kind: 'Pod' }, code: 422 },
  },
  {
    name: 'generic 404 for an unserved path',
    error: newGenericServerResponse(404),
    want: { message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 },
  },
];

for (const { name, error, want } of cases) {
  test(`status: ${name}`, () => {
    assert.ok(error instanceof StatusError);
    assert.ok(error instanceof Error);
    assert.ok(isStatusError(error));
    assert.deepEqual(error.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...want });
    assert.equal(error.code, want.code);
    assert.equal(error.message, want.message);
  });
}

test('status: JSON is in upstream field order with code last', () => {
  assert.equal(
    JSON.stringify(newGenericServerResponse(404).status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}',
  );
  assert.equal(
    JSON.stringify(newNotFound(roles, 'x').status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"roles.rbac.authorization.plat.io \\"x\\" not found","reason":"NotFound","details":{"name":"x","group":"rbac.authorization.plat.io","kind":"roles"},"code":404}',
  );
});

test('status: isStatusError checks the reason', () => {
  assert.ok(isStatusError(newGone('x'), 'Gone'));
  assert.ok(!isStatusError(newGone('x'), 'Expired'));
  assert.ok(!isStatusError(new Error('x')));
});

test('status: the cause of a wrapped error is kept', () => {
  const cause = new Error('boom');
  assert.equal(newInternalError(cause).cause, cause);
  assert.equal(newInternalError('text').message, 'Internal error occurred: text');
});
