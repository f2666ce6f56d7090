import { test } from 'node:test';
import assert from 'node:assert/strict';
import { impersonationRequests } from './impersonation.js';

const cases: { name: string; headers: Record<string, string[]>; want: unknown[] | RegExp }[] = [
  { name: 'nothing asked', headers: { accept: ['*/*'] }, want: [] },
  { name: 'a user', headers: { 'impersonate-user': ['bob'] }, want: [{ kind: 'User', name: 'bob' }] },
  {
    name: 'a service account by its user name',
    headers: { 'impersonate-user': ['system:serviceaccount:ns:robot'] },
    want: [{ kind: 'ServiceAccount', namespace: 'ns', name: 'robot' }],
  },
  {
    name: 'a malformed service-account name is a user name',
    headers: { 'impersonate-user': ['system:serviceaccount:NS:robot'] },
    want: [{ kind: 'User', name: 'system:serviceaccount:NS:robot' }],
  },
  {
    name: 'groups, extras (keys unescaped and lower-cased) and a uid, in upstream order',
    headers: {
      'impersonate-uid': ['u-1'],
      'impersonate-user': ['bob'],
      'impersonate-group': ['a', 'b'],
      'impersonate-extra-acme.com%2fproject': ['p1', 'p2'],
    },
    want: [
      { kind: 'User', name: 'bob' },
      { kind: 'Group', name: 'a' },
      { kind: 'Group', name: 'b' },
      { kind: 'UserExtra', name: 'p1', key: 'acme.com/project' },
      { kind: 'UserExtra', name: 'p2', key: 'acme.com/project' },
      { kind: 'UID', name: 'u-1' },
    ],
  },
  { name: 'groups without a user', headers: { 'impersonate-group': ['a'] }, want: /requested \[\{Kind: Group, Name: "a"\}\] without impersonating a user/ },
  { name: 'a uid without a user', headers: { 'impersonate-uid': ['u'] }, want: /without impersonating a user/ },
];

for (const { name, headers, want } of cases) {
  test(`impersonation requests: ${name}`, () => {
    if (want instanceof RegExp) assert.throws(() => impersonationRequests(headers), want);
    else assert.deepEqual(impersonationRequests(headers), want);
  });
}
