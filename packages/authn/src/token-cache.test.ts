import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { MetricsStability } from '@plat/serving';
import type { TokenAuthentication, TokenAuthenticator } from './authentication.js';
import { CachedTokenAuthenticator } from './token-cache.js';

/** An authenticator that answers from a table and counts what it was asked. */
class CountingAuthenticator implements TokenAuthenticator {
  calls: { token: string; audiences: readonly string[] }[] = [];
  gate?: Promise<void>;

  constructor(private readonly answers: Record<string, TokenAuthentication | Error | undefined>) {}

  async authenticateToken(token: string, audiences: readonly string[]): Promise<TokenAuthentication | undefined> {
    this.calls.push({ token, audiences });
    await this.gate;
    const answer = this.answers[token];
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

const alice: TokenAuthentication = { user: { name: 'alice', uid: '', groups: ['dev'] }, audiences: [] };

function setup(options: { successTtlMs?: number; failureTtlMs?: number; cacheErrors?: boolean } = {}) {
  let now = 1_000_000;
  const inner = new CountingAuthenticator({ good: alice, bad: undefined, broken: new Error('webhook down') });
  const registry = new Registry();
  const cache = new CachedTokenAuthenticator(inner, {
    successTtlMs: options.successTtlMs ?? 120_000,
    failureTtlMs: options.failureTtlMs ?? 120_000,
    ...(options.cacheErrors !== undefined && { cacheErrors: options.cacheErrors }),
    stability: new MetricsStability(registry),
    now: () => now,
  });
  const metric = async (name: string, labels: string): Promise<number | undefined> => {
    const line = (await registry.metrics()).split('\n').find((text) => text.startsWith(`${name}{${labels}}`));
    return line ? Number(line.split(' ').at(-1)) : undefined;
  };
  return { inner, cache, metric, advance: (ms: number) => (now += ms) };
}

test('token cache: a token that authenticates is kept for the success TTL, then asked again', async () => {
  const { inner, cache, advance, metric } = setup({ successTtlMs: 10_000 });
  assert.deepEqual(await cache.authenticateToken('good', []), alice);
  assert.deepEqual(await cache.authenticateToken('good', []), alice);
  assert.equal(inner.calls.length, 1);
  advance(9_999);
  await cache.authenticateToken('good', []);
  assert.equal(inner.calls.length, 1);
  advance(1);
  await cache.authenticateToken('good', []);
  assert.equal(inner.calls.length, 2);
  assert.equal(await metric('authentication_token_cache_request_total', 'status="hit"'), 2);
  assert.equal(await metric('authentication_token_cache_request_total', 'status="miss"'), 2);
  assert.equal(await metric('authentication_token_cache_fetch_total', 'status="ok"'), 2);
});

test('token cache: a token that does not authenticate is kept for the failure TTL', async () => {
  const { inner, cache, advance } = setup({ successTtlMs: 60_000, failureTtlMs: 5_000 });
  assert.equal(await cache.authenticateToken('bad', []), undefined);
  assert.equal(await cache.authenticateToken('bad', []), undefined);
  assert.equal(inner.calls.length, 1);
  advance(5_000);
  await cache.authenticateToken('bad', []);
  assert.equal(inner.calls.length, 2);
});

test('token cache: errors are not kept unless asked (kube-apiserver\'s webhook cache does not)', async () => {
  const plain = setup();
  for (let i = 0; i < 2; i++) await assert.rejects(plain.cache.authenticateToken('broken', []), /webhook down/);
  assert.equal(plain.inner.calls.length, 2);
  assert.equal(await plain.metric('authentication_token_cache_fetch_total', 'status="error"'), 2);
  const caching = setup({ cacheErrors: true });
  for (let i = 0; i < 2; i++) await assert.rejects(caching.cache.authenticateToken('broken', []), /webhook down/);
  assert.equal(caching.inner.calls.length, 1);
});

test('token cache: the audiences asked for are part of the key', async () => {
  const { inner, cache } = setup();
  await cache.authenticateToken('good', ['api']);
  await cache.authenticateToken('good', ['other']);
  await cache.authenticateToken('good', ['api']);
  await cache.authenticateToken('good', []);
  assert.deepEqual(inner.calls.map((call) => call.audiences), [['api'], ['other'], []]);
});

test('token cache: a TTL of 0 keeps nothing', async () => {
  const { inner, cache } = setup({ successTtlMs: 0, failureTtlMs: 0 });
  await cache.authenticateToken('good', []);
  await cache.authenticateToken('good', []);
  assert.equal(inner.calls.length, 2);
});

test('token cache: concurrent lookups of one token share one fetch', async () => {
  const { inner, cache, metric } = setup();
  let release!: () => void;
  inner.gate = new Promise((resolve) => (release = resolve));
  const lookups = [cache.authenticateToken('good', []), cache.authenticateToken('good', []), cache.authenticateToken('good', [])];
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(await metric('authentication_token_cache_active_fetch_count', 'status="in_flight"'), 1);
  assert.equal(await metric('authentication_token_cache_active_fetch_count', 'status="blocked"'), 2);
  release();
  for (const result of await Promise.all(lookups)) assert.deepEqual(result, alice);
  assert.equal(inner.calls.length, 1);
  assert.equal(await metric('authentication_token_cache_active_fetch_count', 'status="in_flight"'), 0);
});
