// Per-user rates shared through Redis: one user cannot take twice its share over two replicas,
// and with Redis gone the replicas keep serving on their local limits.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { startRedis, type RedisProcess } from './support/redis-process.js';

describe('per-user rate limits through Redis, two replicas', () => {
  let redis: RedisProcess | undefined;
  const replicas: ApiserverProcess[] = [];
  let dir: string;
  const token = 'alice-token';
  const BURST = 10;

  before(async () => {
    redis = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'plat-e2e-ratelimit-'));
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, `${token},alice,alice-uid\n`);
    const args = [
      '--storage-backend=memory',
      '--authorization-mode=AlwaysAllow',
      `--token-auth-file=${tokenFile}`,
      `--redis-url=${redis.url}`,
      '--per-user-qps=1',
      `--per-user-burst=${BURST}`,
    ];
    replicas.push(...(await Promise.all([startApiserver(args), startApiserver(args)])));
    for (const replica of replicas) {
      await eventually('Redis in use', async () => /plat_ratelimit_redis_available 1/.test((await replica.request('/metrics')).body));
    }
  });
  after(async () => {
    const codes = await Promise.all(replicas.map((replica) => replica.stop()));
    await redis?.stop('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    assert.deepEqual(codes, [0, 0], 'replicas exit 0 on SIGTERM');
  });

  it('one user spreading requests over both replicas gets one share, not two', async () => {
    const codes: number[] = [];
    const start = Date.now();
    for (let i = 0; i < 4 * BURST; i++) {
      const replica = replicas[i % 2]!;
      const res = await replica.request('/api/v1/namespaces', { token });
      codes.push(res.status);
      if (res.status === 429) {
        assert.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After in whole seconds');
        assert.equal(JSON.parse(res.body).reason, 'TooManyRequests');
      }
    }
    const seconds = (Date.now() - start) / 1000;
    const allowed = codes.filter((code) => code === 200).length;
    assert.equal(codes.filter((code) => code !== 200 && code !== 429).length, 0, codes.join(','));
    // One shared bucket: the burst plus what one qps refilled meanwhile (two local buckets would allow 2 * BURST).
    assert.ok(allowed >= BURST && allowed <= BURST + Math.ceil(seconds) + 1, `allowed ${allowed} of ${codes.length} in ${seconds} s`);
    assert.ok(allowed < 2 * BURST);
    // Both replicas refused some: the share was spent across them.
    assert.ok(codes.some((code, i) => code === 429 && i % 2 === 0) && codes.some((code, i) => code === 429 && i % 2 === 1));
  });

  it('with Redis killed, each replica serves on local limits of the same burst and rate, and says so', async () => {
    await redis!.stop('SIGKILL');
    redis = undefined;
    const fallbackTotal = async (replica: ApiserverProcess): Promise<number> =>
      Number(/^plat_ratelimit_local_fallback_total (\d+)/m.exec((await replica.request('/metrics')).body)?.[1] ?? NaN);
    for (const replica of replicas) {
      await eventually('the local fallback', async () => /plat_ratelimit_redis_available 0/.test((await replica.request('/metrics')).body));
      assert.match(replica.logs(), /Redis unreachable, falling back/);
    }
    // Each replica now decides alone with a fresh local bucket: its burst is served again, then
    // its rate, and then 429; never another answer because of Redis.
    for (const replica of replicas) {
      const fallbacksBefore = await fallbackTotal(replica);
      const codes: number[] = [];
      const start = Date.now();
      while (!codes.includes(429) && codes.length < 10 * BURST) {
        const res = await replica.request('/api/v1/namespaces', { token });
        codes.push(res.status);
        if (res.status === 429) assert.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After in whole seconds');
      }
      const seconds = (Date.now() - start) / 1000;
      const allowed = codes.filter((code) => code === 200).length;
      assert.deepEqual(codes, [...Array(allowed).fill(200), 429], `${replica.port}: ${codes.join(',')}`);
      // The burst plus what one qps refilled meanwhile.
      assert.ok(allowed >= BURST && allowed <= BURST + Math.ceil(seconds) + 1, `allowed ${allowed} in ${seconds} s`);
      assert.equal(await fallbackTotal(replica), fallbacksBefore + codes.length, 'every decision made locally');
    }
  });
});
