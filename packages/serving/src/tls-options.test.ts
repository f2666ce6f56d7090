import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { generateSelfSignedCert } from './serving-cert.js';
import { secureServingOptions } from './tls-options.js';

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
