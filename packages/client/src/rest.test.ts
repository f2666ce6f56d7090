import { after, before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStatusError } from '@plat/apimachinery';
import { ensureSelfSignedCert } from '@plat/serving';
import { RestClient, retryAfterMs } from './rest.js';

const answer = (statusCode: number, headers: Record<string, string> = {}) => ({ statusCode, headers });

const waits: [string, ReturnType<typeof answer>, number | undefined][] = [
  ['429 with Retry-After: 1', answer(429, { 'retry-after': '1' }), 1000],
  ['503 with Retry-After: 2', answer(503, { 'retry-after': ' 2 ' }), 2000],
  ['500 with Retry-After: 0', answer(500, { 'retry-after': '0' }), 0],
  ['429 without Retry-After', answer(429), undefined],
  ['429 with an HTTP date (client-go reads seconds only)', answer(429, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), undefined],
  ['409 with Retry-After', answer(409, { 'retry-after': '1' }), undefined],
  ['200', answer(200, { 'retry-after': '1' }), undefined],
];

for (const [name, res, expected] of waits) {
  test(`retry after: ${name}`, () => {
    assert.equal(retryAfterMs(res as Pick<IncomingMessage, 'statusCode' | 'headers'>), expected);
  });
}

describe('answers that ask to come back later', () => {
  let server: Server;
  let dir: string;
  let ca: string;
  /** What the server answers next, by request; the default is 200. */
  const script: ((res: ServerResponse) => void)[] = [];
  const received: string[] = [];
  const client = (): RestClient => new RestClient({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plat-client-rest-'));
    const tls = await ensureSelfSignedCert({ certDir: dir, bindAddress: '127.0.0.1' });
    ca = tls.ca;
    server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push(`${req.method} ${req.url} ${body}`);
        const next = script.shift();
        if (next) return next(res);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"Thing","ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const tooMany = (retryAfter?: string) => (res: ServerResponse) => {
    res.writeHead(429, { 'content-type': 'application/json', ...(retryAfter !== undefined && { 'retry-after': retryAfter }) });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'Too many requests, please try again later.' }));
  };

  it('a 429 with Retry-After is sent again, body and all, after the wait it names', async () => {
    received.length = 0;
    script.push(tooMany('1'));
    const started = Date.now();
    const answered = await client().request<{ ok: boolean }>({ method: 'POST', path: '/api/v1/things', body: { a: 1 } });
    assert.deepEqual(answered, { kind: 'Thing', ok: true });
    assert.ok(Date.now() - started >= 1000, `waited ${Date.now() - started} ms`);
    assert.deepEqual(received, ['POST /api/v1/things {"a":1}', 'POST /api/v1/things {"a":1}']);
  });

  it('a 429 without Retry-After is the caller’s: a StatusError at once', async () => {
    received.length = 0;
    script.push(tooMany());
    await assert.rejects(client().request({ path: '/api/v1/things' }), (error: unknown) => isStatusError(error) && error.code === 429);
    assert.equal(received.length, 1);
  });

  it('after 10 retries the answer is returned as it is', async () => {
    received.length = 0;
    for (let i = 0; i < 11; i++) script.push(tooMany('0'));
    await assert.rejects(client().request({ path: '/api/v1/things' }), (error: unknown) => isStatusError(error) && error.reason === 'TooManyRequests');
    assert.equal(received.length, 11);
    assert.equal(script.length, 0);
  });
});
