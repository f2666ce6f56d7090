import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { generateSelfSignedCert } from './serving-cert.js';
import { parseTlsCipherSuites, parseTlsMinVersion, secureServingOptions, type TlsPolicy } from './tls-options.js';

/** The cipher and version a client with `clientOptions` ends up with against a secure port. */
async function negotiate(clientOptions: { ciphers?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3' }): Promise<{ name: string; version: string }> {
  const served = await generateSelfSignedCert({ bindAddress: '127.0.0.1' });
  const server = createServer(secureServingOptions(served), (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const socket: TLSSocket = await new Promise((resolve, reject) => {
      const client = connect({ host: '127.0.0.1', port, ca: served.ca, ...clientOptions }, () => resolve(client));
      client.once('error', reject);
    });
    const cipher = socket.getCipher();
    socket.destroy();
    return { name: cipher.standardName, version: cipher.version };
  } finally {
    server.close();
  }
}

test('secure ports choose AES-128-GCM, as Go does, though node clients list AES-256 first', async () => {
  const cases = [
    { client: {}, want: { name: 'TLS_AES_128_GCM_SHA256', version: 'TLSv1.3' } },
    // A client that allows only ChaCha20 still gets it: the order prefers, it does not exclude.
    { client: { ciphers: 'TLS_CHACHA20_POLY1305_SHA256' }, want: { name: 'TLS_CHACHA20_POLY1305_SHA256', version: 'TLSv1.3' } },
    { client: { maxVersion: 'TLSv1.2' as const }, want: { name: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', version: 'TLSv1.2' } },
  ];
  for (const { client, want } of cases) assert.deepEqual(await negotiate(client), want, JSON.stringify(client));
});

test('secure ports refuse TLS 1.1', async () => {
  await assert.rejects(negotiate({ maxVersion: 'TLSv1.1' as 'TLSv1.2' }), /protocol|version/i);
});

/** A handshake against a port served with `policy`; the cipher and version, or the error. */
async function against(policy: TlsPolicy, client: { ciphers?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3' }): Promise<string> {
  const served = await generateSelfSignedCert({ bindAddress: '127.0.0.1' });
  const server = createServer(secureServingOptions(served, policy), (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, ca: served.ca, ...client }, () => {
        const cipher = socket.getCipher();
        socket.destroy();
        resolve(`${cipher.version} ${cipher.standardName}`);
      });
      socket.once('error', () => resolve('refused'));
    });
  } finally {
    server.close();
  }
}

test('--tls-min-version=VersionTLS13 refuses a TLS 1.2 client', async () => {
  const policy: TlsPolicy = { minVersion: parseTlsMinVersion('VersionTLS13') };
  assert.equal(await against(policy, { maxVersion: 'TLSv1.2' }), 'refused');
  assert.equal(await against(policy, {}), 'TLSv1.3 TLS_AES_128_GCM_SHA256');
});

test('--tls-cipher-suites: TLS 1.2 offers only the listed suites, in their order; TLS 1.3 is left alone, as Go', async () => {
  const policy: TlsPolicy = { minVersion: 'TLSv1.2', tls12Suites: parseTlsCipherSuites(['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_AES_128_GCM_SHA256'])! };
  assert.equal(await against(policy, { maxVersion: 'TLSv1.2' }), 'TLSv1.2 TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384');
  assert.equal(await against(policy, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }), 'refused');
  assert.equal(await against(policy, {}), 'TLSv1.3 TLS_AES_128_GCM_SHA256');
});

test('TLS flags: upstream\'s refusals', () => {
  assert.throws(() => parseTlsMinVersion('TLS12'), { message: 'unknown tls version "TLS12"' });
  assert.throws(() => parseTlsMinVersion('VersionTLS10'), /not supported by this server/);
  assert.equal(parseTlsMinVersion(''), 'TLSv1.2');
  assert.throws(() => parseTlsCipherSuites(['TLS_FOO']), { message: "Cipher suite TLS_FOO not supported or doesn't exist" });
  assert.throws(() => parseTlsCipherSuites(['TLS_RSA_WITH_RC4_128_SHA']), /not available in this server's TLS library/);
  assert.deepEqual(parseTlsCipherSuites(['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256']), ['ECDHE-RSA-CHACHA20-POLY1305']);
  assert.equal(parseTlsCipherSuites([]), undefined);
});
