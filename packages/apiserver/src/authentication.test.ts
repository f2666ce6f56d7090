import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { authenticate, type AuthenticationOptions } from './authentication.js';
import type { UserInfo } from './user.js';

const tokens = new Map<string, UserInfo>([
  ['good', { name: 'alice', uid: '1', groups: ['devs'] }],
  ['master', { name: 'root', uid: '0', groups: ['system:masters', 'system:authenticated'] }],
]);

const anonymous = { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] };

const cases: { name: string; header?: string; options: AuthenticationOptions; want: UserInfo | undefined | 'Unauthorized' }[] = [
  { name: 'known token', header: 'Bearer good', options: { tokens }, want: { name: 'alice', uid: '1', groups: ['devs', 'system:authenticated'] } },
  { name: 'scheme is case-insensitive', header: 'bearer good', options: { tokens }, want: { name: 'alice', uid: '1', groups: ['devs', 'system:authenticated'] } },
  { name: 'system:authenticated is not added twice', header: 'Bearer master', options: { tokens }, want: tokens.get('master') },
  { name: 'unknown token fails even with anonymous on', header: 'Bearer nope', options: { tokens, anonymous: true }, want: 'Unauthorized' },
  { name: 'a token with no token file fails', header: 'Bearer good', options: {}, want: 'Unauthorized' },
  { name: 'no header: anonymous', options: { tokens }, want: anonymous },
  { name: 'no header, anonymous off', options: { tokens, anonymous: false }, want: undefined },
  { name: 'another scheme is no credential', header: 'Basic YWxpY2U6eA==', options: { tokens }, want: anonymous },
  { name: 'empty bearer is no credential', header: 'Bearer ', options: { tokens }, want: anonymous },
];

for (const { name, header, options, want } of cases) {
  test(`authenticate: ${name}`, () => {
    if (want === 'Unauthorized') {
      assert.throws(() => authenticate(header, options), (error: unknown) => isStatusError(error, 'Unauthorized') && error.message === 'Unauthorized');
    } else {
      assert.deepEqual(authenticate(header, options), want);
    }
  });
}
