import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { authenticate, authenticateToken, certificateUser, type AuthenticationOptions, type TlsPeer, type TokenAuthenticator } from './authentication.js';
import type { UserInfo } from './user.js';

const tokens = new Map<string, UserInfo>([
  ['good', { name: 'alice', uid: '1', groups: ['devs'] }],
  ['master', { name: 'root', uid: '0', groups: ['system:masters', 'system:authenticated'] }],
]);

const anonymous = { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] };

/** A JWT-like authenticator: tokens starting "jwt-" are its own; "jwt-bad" is one that fails. */
const jwt: TokenAuthenticator = {
  async authenticateToken(token, audiences) {
    if (!token.startsWith('jwt-')) return undefined;
    if (token === 'jwt-bad') throw new Error('service account token has expired');
    return { user: { name: 'system:serviceaccount:ns:sa', uid: 'sa-uid', groups: ['system:serviceaccounts'] }, audiences: [...audiences] };
  },
};

const peer = (subject: Record<string, string | string[]> | undefined, authorized = true): TlsPeer => ({
  authorized,
  authorizationError: authorized ? null : new Error('certificate signed by unknown authority'),
  getPeerCertificate: () => (subject ? ({ subject, serialNumber: '01' } as never) : {}),
});

const cases: {
  name: string;
  header?: string;
  connection?: TlsPeer;
  options: AuthenticationOptions;
  want: UserInfo | undefined | 'Unauthorized';
}[] = [
  { name: 'known token', header: 'Bearer good', options: { tokens }, want: { name: 'alice', uid: '1', groups: ['devs', 'system:authenticated'] } },
  { name: 'scheme is case-insensitive', header: 'bearer good', options: { tokens }, want: { name: 'alice', uid: '1', groups: ['devs', 'system:authenticated'] } },
  { name: 'system:authenticated is not added twice', header: 'Bearer master', options: { tokens }, want: tokens.get('master') },
  { name: 'unknown token fails even with anonymous on', header: 'Bearer nope', options: { tokens, anonymous: true }, want: 'Unauthorized' },
  { name: 'a token with no token file fails', header: 'Bearer good', options: {}, want: 'Unauthorized' },
  { name: 'no header: anonymous', options: { tokens }, want: anonymous },
  { name: 'no header, anonymous off', options: { tokens, anonymous: false }, want: undefined },
  { name: 'another scheme is no credential', header: 'Basic YWxpY2U6eA==', options: { tokens }, want: anonymous },
  { name: 'empty bearer is no credential', header: 'Bearer ', options: { tokens }, want: anonymous },
  {
    name: 'a token authenticator after the token file',
    header: 'Bearer jwt-ok',
    options: { tokens, tokenAuthenticators: [jwt] },
    want: { name: 'system:serviceaccount:ns:sa', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:authenticated'] },
  },
  { name: 'a token authenticator that fails is a 401', header: 'Bearer jwt-bad', options: { tokens, tokenAuthenticators: [jwt] }, want: 'Unauthorized' },
  {
    name: 'client certificate: CN is the user, each O a group',
    connection: peer({ CN: 'bob', O: ['devs', 'ops'] }),
    options: { clientCA: 'pem' },
    want: { name: 'bob', uid: '', groups: ['devs', 'ops', 'system:authenticated'] },
  },
  { name: 'client certificate with one O', connection: peer({ CN: 'bob', O: 'devs' }), options: { clientCA: 'pem' }, want: { name: 'bob', uid: '', groups: ['devs', 'system:authenticated'] } },
  { name: 'client certificate not from the CA is a 401', connection: peer({ CN: 'bob' }, false), options: { clientCA: 'pem' }, want: 'Unauthorized' },
  {
    name: 'a bad certificate with a good token: the token authenticates',
    connection: peer({ CN: 'bob' }, false),
    header: 'Bearer good',
    options: { tokens, clientCA: 'pem' },
    want: { name: 'alice', uid: '1', groups: ['devs', 'system:authenticated'] },
  },
  { name: 'a certificate without CommonName: no opinion', connection: peer({ O: 'devs' }), options: { clientCA: 'pem' }, want: anonymous },
  { name: 'certificates are ignored without a client CA', connection: peer({ CN: 'bob' }), options: {}, want: anonymous },
  { name: 'no certificate: no opinion', connection: peer(undefined), options: { clientCA: 'pem' }, want: anonymous },
];

for (const { name, header, connection, options, want } of cases) {
  test(`authenticate: ${name}`, async () => {
    const credentials = { authorization: header, connection };
    if (want === 'Unauthorized') {
      await assert.rejects(authenticate(credentials, options), (error: unknown) => isStatusError(error, 'Unauthorized') && error.message === 'Unauthorized');
    } else {
      assert.deepEqual(await authenticate(credentials, options), want);
    }
  });
}

test('certificateUser: the reason a certificate failed', () => {
  assert.match(certificateUser(peer({ CN: 'bob' }, false)).error ?? '', /CN=bob failed: x509: certificate signed by unknown authority/);
});

test('authenticateToken (TokenReview): errors as upstream words them; file tokens are audience agnostic', async () => {
  assert.deepEqual(await authenticateToken('nope', { tokens }), { error: 'invalid bearer token' });
  assert.deepEqual(await authenticateToken('jwt-bad', { tokens, tokenAuthenticators: [jwt] }), { error: 'service account token has expired' });
  const apiAudiences = ['https://plat.example'];
  assert.deepEqual(await authenticateToken('good', { tokens, apiAudiences }, ['https://plat.example', 'other']), {
    user: { name: 'alice', uid: '1', groups: ['devs', 'system:authenticated'] },
    audiences: ['https://plat.example'],
  });
  assert.deepEqual(await authenticateToken('good', { tokens, apiAudiences }, ['vault']), { error: 'invalid bearer token' });
  assert.deepEqual(await authenticateToken('jwt-ok', { tokenAuthenticators: [jwt], apiAudiences }), {
    user: { name: 'system:serviceaccount:ns:sa', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:authenticated'] },
    audiences: apiAudiences,
  });
});
