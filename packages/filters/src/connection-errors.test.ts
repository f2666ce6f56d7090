// Requests node cannot parse, and failed handshakes: answered with a Status, counted, logged rarely.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { MetricsStability } from '@plat/serving';
import { startApiServer, type ApiTestServer } from '@plat/apiserver/testing';
import { captureLogger, testCert } from '@plat/apiserver/testing';
import { MAX_HEADER_BYTES, handleConnectionErrors } from './connection-errors.js';

/** Sends `raw` over TLS and returns everything the server wrote back before closing. */
async function rawRequest(port: number, raw: string): Promise<string> {
  const { ca } = await testCert();
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => socket.end(raw));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
}

const statusOf = (response: string): { code: number; body: Record<string, unknown> } => ({
  code: Number(response.split(' ')[1]),
  body: JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>,
});

describe('connection errors on the API server', () => {
  let api: ApiTestServer;
  before(async () => {
    api = await startApiServer();
  });
  after(() => api?.server.shutdown());

  it('an unknown method is a 400 Status each time, and one log line for fifty', async () => {
    const logged = () => api.lines.filter((line) => line.msg === 'malformed HTTP request refused').length;
    for (let i = 0; i < 50; i++) {
      const { code, body } = statusOf(await rawRequest(api.port, 'FOO /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n'));
      assert.equal(code, 400);
      assert.equal(body.kind, 'Status');
      assert.equal(body.message, 'the request could not be parsed: HPE_INVALID_METHOD');
    }
    assert.equal(logged(), 1);
    assert.match((await api.get('/metrics')).body, /plat_http_connection_errors_total\{stage="request",code="HPE_INVALID_METHOD"\} 50/);
  });

  it('a URL of 100 KB is served (upstream takes 1 MiB of headers); past 1 MiB is a 431 Status', async () => {
    const long = await api.get(`/api/v1/namespaces?fieldSelector=metadata.name%3D${'a'.repeat(100 * 1024)}`);
    assert.equal(long.status, 200, long.body.slice(0, 200));
    const response = await rawRequest(api.port, `GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(MAX_HEADER_BYTES)}\r\n\r\n`);
    const { code, body } = statusOf(response);
    assert.equal(code, 431);
    assert.equal(body.message, `the request's header section is larger than ${MAX_HEADER_BYTES} bytes`);
  });
});

/**
 * A GET whose X-Big header holds `size` bytes, written 16 KiB at a time while reading, as a slow
 * client: what came back once the server closed; a reset (an answer lost) rejects.
 */
async function slowRequest(port: number, size: number): Promise<string> {
  const { ca } = await testCert();
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, async () => {
      socket.write('GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: ');
      for (let sent = 0; sent < size && socket.writable; sent += 16 * 1024) {
        socket.write('b'.repeat(16 * 1024));
        await new Promise((r) => setTimeout(r, 1));
      }
      if (socket.writable) socket.end('\r\n\r\n');
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('close', () => resolve(data));
    socket.on('error', (error) => reject(new Error(`${error.message} after ${JSON.stringify(data.slice(0, 80))}`)));
  });
}

describe('connection errors: a client still sending', () => {
  let api: ApiTestServer;
  before(async () => {
    api = await startApiServer();
  });
  after(() => api?.server.shutdown());

  it('reads its 431 before the connection closes, and the refusal is counted once', async () => {
    const response = await slowRequest(api.port, 2 * MAX_HEADER_BYTES);
    assert.equal(statusOf(response).code, 431, response.slice(0, 200));
    assert.match((await api.get('/metrics')).body, /plat_http_connection_errors_total\{stage="request",code="HPE_HEADER_OVERFLOW"\} 1\n/);
  });
});

describe('connection errors: the log', () => {
  let server: Server;
  let now = 0;
  const { logger, lines } = captureLogger();
  const registry = new Registry();
  before(async () => {
    const { cert, key } = await testCert();
    server = createHttpsServer({ cert, key }, (_req, res) => res.end());
    handleConnectionErrors(server, logger, new MetricsStability(registry), () => now);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => server?.close());

  it('gets one line a minute at most, carrying how many were not logged; failed handshakes count too', async () => {
    const { port } = server.address() as AddressInfo;
    const bad = () => rawRequest(port, 'BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n');
    await bad();
    await bad();
    now += 30_000;
    await bad();
    now += 31_000;
    await bad();
    const warnings = lines.filter((line) => line.msg === 'malformed HTTP request refused');
    assert.deepEqual(warnings.map((line) => line.notLoggedSinceLastLine), [0, 2]);
    // Plain HTTP to the TLS port: the handshake fails.
    await new Promise<void>((resolve) => {
      const socket = netConnect(port, '127.0.0.1', () => socket.end('GET / HTTP/1.1\r\n\r\n'));
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const metrics = await registry.metrics();
    assert.match(metrics, /plat_http_connection_errors_total\{stage="request",code="HPE_INVALID_METHOD"\} 4/);
    assert.match(metrics, /plat_http_connection_errors_total\{stage="tls",code="[A-Z_]+"\} 1/);
  });
});
