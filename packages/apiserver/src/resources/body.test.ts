import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isStatusError } from '@plat/apimachinery';
import type { RequestContext } from '../context.js';
import { readBody } from './body.js';

/** What readBody made of one request the client sends with `send`. */
async function readWith(limit: number, send: (port: number) => void): Promise<Buffer | Error> {
  let outcome!: Promise<Buffer | Error>;
  const received = new Promise<void>((resolve) => {
    const server = createServer((req: IncomingMessage, res) => {
      const ctx = { req, get: (name: string) => String(req.headers[name.toLowerCase()] ?? '') } as unknown as RequestContext;
      outcome = readBody(ctx, limit).then(
        (body) => body,
        (error: Error) => error,
      );
      void outcome.then(() => {
        if (!res.destroyed) res.end();
        server.close();
        resolve();
      });
    });
    server.listen(0, '127.0.0.1', () => send((server.address() as AddressInfo).port));
  });
  await received;
  return outcome;
}

function post(port: number, chunks: string[], options: { length?: number; abort?: boolean } = {}): void {
  const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: options.length === undefined ? {} : { 'content-length': options.length } });
  req.on('error', () => {});
  req.on('response', (res) => res.resume());
  for (const chunk of chunks) req.write(chunk);
  if (options.abort) setTimeout(() => req.destroy(), 50);
  else req.end();
}

describe('readBody', () => {
  it('joins the chunks of a body', async () => {
    const body = await readWith(100, (port) => post(port, ['{"a":', '1}']));
    assert.ok(Buffer.isBuffer(body));
    assert.equal(body.toString(), '{"a":1}');
  });

  it('reads an empty body as no bytes', async () => {
    const body = await readWith(100, (port) => post(port, [], { length: 0 }));
    assert.ok(Buffer.isBuffer(body));
    assert.equal(body.length, 0);
  });

  it('refuses a declared length above the limit with 413, before reading', async () => {
    const error = await readWith(10, (port) => post(port, ['x'.repeat(11)], { length: 11 }));
    assert.ok(isStatusError(error) && error.code === 413, String(error));
  });

  it('refuses a chunked body once it passes the limit, with 413', async () => {
    const error = await readWith(10, (port) => post(port, ['x'.repeat(6), 'x'.repeat(6)]));
    assert.ok(isStatusError(error) && error.code === 413, String(error));
  });

  it('fails, and does not wait, when the client goes away mid-body', async () => {
    const error = await readWith(100, (port) => post(port, ['{"a":'], { abort: true }));
    assert.ok(error instanceof Error && !isStatusError(error), String(error));
    // The request's own error: an aborted request (or, had it closed without one, a premature close).
    assert.ok(['ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE'].includes((error as Error & { code?: string }).code ?? ''), String(error));
  });
});
