import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '@plat/apiserver/testing';
import { startApiServer } from '@plat/apiserver/testing';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('--request-timeout: a request past it gets upstream\'s 504 Status at once; ?timeout= shortens it; a bad one is a 400', async () => {
  const { server, get } = await startServer({ requestTimeoutMs: 300 });
  let finished = 0;
  server.handle('/slow', async (ctx) => {
    await sleep(Number(ctx.query.ms));
    finished++;
    ctx.body = 'late';
  });
  try {
    const started = Date.now();
    const late = await get('/slow?ms=1500');
    const took = Date.now() - started;
    assert.equal(late.status, 504);
    assert.ok(took >= 290 && took < 1200, `answered after ${took} ms`);
    assert.deepEqual(JSON.parse(late.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within the allotted timeout',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    assert.equal((await get('/slow?ms=10')).body, 'late', 'a request within the timeout is answered');
    assert.equal((await get('/slow?ms=200&timeout=50ms')).status, 504, 'the request\'s own shorter timeout');
    assert.equal((await get('/slow?ms=100&timeout=10m')).status, 200, 'a longer ?timeout= does not lift the server\'s');
    const bad = await get('/slow?ms=0&timeout=soon');
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.body).message, 'invalid timeout specified in the request URL - time: invalid duration "soon"');
    // The handler that was timed out still ran to its end, answering no one; the server is fine.
    while (finished < 4) await sleep(20);
    assert.equal((await get('/healthz')).status, 200);
    // Both 504s were ended in self-defense, as upstream's timeout filter counts them.
    assert.match((await get('/metrics')).body, /apiserver_request_terminations_total\{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",code="504"\} 2/);
  } finally {
    await server.shutdown();
  }
});

test('--request-timeout does not end a watch; --min-request-timeout spreads a watch without timeoutSeconds over [min, 2 x min]', async () => {
  const { server, send } = await startApiServer({ requestTimeoutMs: 200 }, { minRequestTimeoutS: 1 });
  try {
    const durations: number[] = [];
    await Promise.all(
      [0, 1, 2].map(async () => {
        const started = Date.now();
        const watch = await send('GET', '/api/v1/namespaces?watch=1');
        assert.equal(watch.status, 200);
        durations.push(Date.now() - started);
      }),
    );
    for (const ms of durations) assert.ok(ms >= 950 && ms < 2500, `a watch lasted ${ms} ms`);
  } finally {
    await server.shutdown();
  }
});
