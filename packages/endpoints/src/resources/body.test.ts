import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isStatusError } from '@plat/apimachinery';
import type { RequestContext } from '@plat/filters';
import { readBody } from './body.js';

/**
 * What readBody made of one request the client sends with `send`, which is told when the server
 * has the request (its headers read).
 */
async function readWith(limit: number, send: (port: number, requested: Promise<void>) => void, discardMax?: number): Promise<Buffer | Error> {
  let outcome!: Promise<Buffer | Error>;
  let onRequest!: () => void;
  const requested = new Promise<void>((resolve) => (onRequest = resolve));
  const received = new Promise<void>((resolve) => {
    const server = createServer((req: IncomingMessage, res) => {
      onRequest();
      const ctx = { req, state: {}, get: (name: string) => String(req.headers[name.toLowerCase()] ?? '') } as unknown as RequestContext;
      outcome = readBody(ctx, limit, discardMax).then(
        (body) => body,
        (error: Error) => error,
      );
      void outcome.then(() => {
        if (!res.destroyed) res.end();
        server.close();
        resolve();
      });
    });
    server.listen(0, '127.0.0.1', () => send((server.address() as AddressInfo).port, requested));
  });
  await received;
  return outcome;
}

function post(port: number, chunks: string[], options: { length?: number; abortOnce?: Promise<void> } = {}): void {
  const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: options.length === undefined ? {} : { 'content-length': options.length } });
  req.on('error', () => {});
  req.on('response', (res) => res.resume());
  for (const chunk of chunks) req.write(chunk);
  // Gone mid-body once the server is reading it: before that, the server would never see a request.
  if (options.abortOnce) void options.abortOnce.then(() => req.destroy());
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

  it('refuses a declared length above the limit with 413: at once when far above, without reading', async () => {
    for (const [length, discardMax] of [
      [11, undefined],
      [11, 0],
    ] as const) {
      const error = await readWith(10, (port) => post(port, ['x'.repeat(length)], { length }), discardMax);
      assert.ok(isStatusError(error) && error.code === 413, String(error));
    }
  });

  it('a client sending a body over the limit gets the 413 and no reset, on a connection it closes or keeps', async () => {
    const server = createServer((req, res) => {
      const ctx = { req, state: {}, get: (name: string) => String(req.headers[name.toLowerCase()] ?? '') } as unknown as RequestContext;
      readBody(ctx, 1024 * 1024).then(
        () => res.end('ok'),
        (error: unknown) => {
          res.statusCode = isStatusError(error) ? error.code : 500;
          res.end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    /** The status, and any error the client saw until its request was over (an upload reset: EPIPE). */
    const send = (body: Buffer, agent: Agent | false): Promise<{ status: number; error?: string }> =>
      new Promise((resolve) => {
        let status = 0;
        let error: string | undefined;
        const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: 'POST', path: '/', agent }, (res) => {
          status = res.statusCode ?? 0;
          res.resume();
        });
        req.on('error', (e: Error & { code?: string }) => (error = e.code ?? e.message));
        req.on('close', () => setTimeout(() => resolve({ status, ...(error && { error }) }), 20));
        req.end(body);
      });
    try {
      // Four times the limit. A client that asks to close the connection after the answer (as
      // agent: false does) had its upload reset by the close on every try before.
      for (const agent of [false, keepAlive] as const) {
        assert.deepEqual(await send(Buffer.alloc(4 * 1024 * 1024), agent), { status: 413 }, agent ? 'keep-alive' : 'close');
        assert.deepEqual(await send(Buffer.from('{}'), agent), { status: 200 });
      }
    } finally {
      keepAlive.destroy();
      server.close();
    }
  });

  it('refuses a chunked body once it passes the limit, with 413', async () => {
    const error = await readWith(10, (port) => post(port, ['x'.repeat(6), 'x'.repeat(6)]));
    assert.ok(isStatusError(error) && error.code === 413, String(error));
  });

  it('fails, and does not wait, when the client goes away mid-body', async () => {
    const error = await readWith(100, (port, requested) => post(port, ['{"a":'], { abortOnce: requested }));
    assert.ok(error instanceof Error && !isStatusError(error), String(error));
    // The request's own error: an aborted request (or, had it closed without one, a premature close).
    assert.ok(['ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE'].includes((error as Error & { code?: string }).code ?? ''), String(error));
  });
});
