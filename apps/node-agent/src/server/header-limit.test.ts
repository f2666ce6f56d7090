// Requests node cannot parse, on each of the agent's servers, answered as the kubelet's Go server
// answers them: header sections up to 1 MiB served, past it a 431 in net/http's words that a client
// still sending its request reads; a malformed request line a 400.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Registry } from 'prom-client';
import { silentLogger } from '@plat/client';
import { generateSelfSignedCert, pingCheck } from '@plat/serving';
import { RequestAuthenticator } from './authentication.js';
import { RequestAuthorizer } from './authorization.js';
import { nodeHandlers } from './handlers.js';
import { startHealthz, startReadOnly, startSecured, type Listener } from './servers.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Sends a GET whose X-Big header holds `size` bytes, written 16 KiB at a time as a slow client
 * would, reading meanwhile; resolves with all that came back once the server closed. A reset
 * (the server closing before the client had read its answer) rejects.
 */
function slowRequest(open: () => Socket, size: number, requestLine = 'GET /healthz HTTP/1.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = open();
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('close', () => resolve(data));
    socket.on('error', (error) => reject(new Error(`${error.message} after ${JSON.stringify(data.slice(0, 80))}`)));
    socket.once(socket instanceof Object && 'encrypted' in socket ? 'secureConnect' : 'connect', async () => {
      socket.write(`${requestLine}\r\nHost: agent\r\nConnection: close\r\nX-Big: `);
      for (let sent = 0; sent < size && socket.writable; sent += 16 * KiB) {
        socket.write('b'.repeat(Math.min(16 * KiB, size - sent)));
        await new Promise((r) => setTimeout(r, 1));
      }
      if (socket.writable) socket.end('\r\n\r\n');
    });
  });
}

const GO_431 = 'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large';
const GO_400 = 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request';

describe("the agent's servers: header sections as the kubelet's", () => {
  const servers: { name: string; listener: Listener; open: () => Socket }[] = [];
  before(async () => {
    const tls = await generateSelfSignedCert({ bindAddress: '127.0.0.1', dnsNames: ['localhost'] });
    const handler = nodeHandlers({ checks: [pingCheck], configz: () => ({}), registry: new Registry(), logDir: '/var/log/', debuggingHandlers: true });
    const secured = await startSecured({
      host: '127.0.0.1',
      port: 0,
      tls: { cert: tls.cert, key: tls.key },
      nodeName: 'worker-1',
      authenticator: new RequestAuthenticator({ x509: false, anonymous: true }),
      authorizer: new RequestAuthorizer({ mode: 'AlwaysAllow' }),
      handler,
      logger: silentLogger,
    });
    const healthz = await startHealthz('127.0.0.1', 0, [pingCheck], silentLogger);
    const readOnly = await startReadOnly('127.0.0.1', 0, nodeHandlers({ checks: [pingCheck], configz: () => ({}), registry: new Registry(), logDir: '/var/log/', debuggingHandlers: false }, true), silentLogger);
    servers.push(
      { name: 'secured', listener: secured, open: () => tlsConnect({ host: '127.0.0.1', port: secured.port, ca: tls.ca, servername: 'localhost' }) },
      { name: 'healthz', listener: healthz, open: () => netConnect({ host: '127.0.0.1', port: healthz.port }) },
      { name: 'read-only', listener: readOnly, open: () => netConnect({ host: '127.0.0.1', port: readOnly.port }) },
    );
  });
  after(async () => {
    for (const { listener } of servers) await listener.close();
  });

  it('a 100 KB header is served (node alone refuses past 16 KiB)', async () => {
    for (const { name, open } of servers) {
      const response = await slowRequest(open, 100 * KiB);
      assert.match(response, /^HTTP\/1\.1 200 OK\r\n/, name);
      // The body, `ok`, whole or chunked.
      assert.match(response, /\r\n\r\n(ok|2\r\nok\r\n0\r\n\r\n)$/, name);
    }
  });

  it('past 1 MiB: a 431 as net/http words it, read by a client still sending', async () => {
    for (const { name, open } of servers) assert.equal(await slowRequest(open, 2 * MiB), GO_431, name);
  });

  it('a request line node cannot parse: a 400 as net/http words it', async () => {
    for (const { name, open } of servers) assert.equal(await slowRequest(open, 10, 'GET /healthz HTTP/9.x'), GO_400, name);
  });
});
