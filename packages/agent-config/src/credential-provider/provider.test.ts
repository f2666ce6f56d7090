import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodePlugin, pluginRuns, shellPlugin, writeExecutable } from '../testing.js';
import { CredentialProviderPlugin } from './provider.js';
import type { CredentialProvider } from './schema.js';

const V1 = 'credentialprovider.agent.plat.io/v1';
const MINUTE = 60_000;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plat-provider-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** A fake clock the cache expires by. */
function clock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_000_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

/**
 * A provider whose plugin answers with the given cacheKeyType and cacheDuration (omitted when undefined),
 * credentials naming the image, and a log of its runs.
 */
async function provider(name: string, cacheKeyType: string, cacheDuration: string | undefined, defaultCacheDuration: number, now: () => number) {
  const log = join(dir, `${name}.log`);
  const duration = cacheDuration === undefined ? '' : `cacheDuration: ${JSON.stringify(cacheDuration)},`;
  await writeExecutable(
    dir,
    name,
    nodePlugin(`  respond({ apiVersion: request.apiVersion, kind: 'CredentialProviderResponse', cacheKeyType: ${JSON.stringify(cacheKeyType)}, ${duration}
    auth: { [request.image.split('/')[0]]: { username: request.image, password: 'p' } } });`),
  );
  const config: CredentialProvider = {
    name,
    matchImages: ['*.registry.io', 'registry.io'],
    defaultCacheDuration,
    apiVersion: V1,
    env: [{ name: 'PLUGIN_LOG', value: log }],
  };
  const plugin = new CredentialProviderPlugin(config, { binDir: dir, now, timeoutMs: 5000 });
  const runs = async (): Promise<string[]> => (await pluginRuns(log)).map((run) => run.request.image);
  return { plugin, runs };
}

test('cache: cacheKeyType Image caches per image', async () => {
  const time = clock();
  const { plugin, runs } = await provider('image-key', 'Image', '5m', 0, time.now);
  await plugin.provide('registry.io/a');
  await plugin.provide('registry.io/a');
  await plugin.provide('registry.io/b');
  assert.deepEqual(await runs(), ['registry.io/a', 'registry.io/b']);
});

test('cache: cacheKeyType Registry caches per registry', async () => {
  const time = clock();
  const { plugin, runs } = await provider('registry-key', 'Registry', '5m', 0, time.now);
  assert.deepEqual(await plugin.provide('registry.io/a'), { 'registry.io': { username: 'registry.io/a', password: 'p' } });
  // Another image of the same registry gets the cached answer, made for the first image.
  assert.deepEqual(await plugin.provide('registry.io/b'), { 'registry.io': { username: 'registry.io/a', password: 'p' } });
  await plugin.provide('eu.registry.io/a');
  assert.deepEqual(await runs(), ['registry.io/a', 'eu.registry.io/a']);
});

test('cache: cacheKeyType Global caches for every image', async () => {
  const time = clock();
  const { plugin, runs } = await provider('global-key', 'Global', '5m', 0, time.now);
  await plugin.provide('registry.io/a');
  await plugin.provide('eu.registry.io/b');
  await plugin.provide('us.registry.io/c');
  assert.deepEqual(await runs(), ['registry.io/a']);
});

test('cache: entries expire after the response cacheDuration', async () => {
  const time = clock();
  const { plugin, runs } = await provider('expiring', 'Image', '5m', 60 * MINUTE, time.now);
  await plugin.provide('registry.io/a');
  time.advance(5 * MINUTE - 1);
  await plugin.provide('registry.io/a');
  time.advance(1);
  await plugin.provide('registry.io/a');
  assert.deepEqual(await runs(), ['registry.io/a', 'registry.io/a']);
});

test('cache: without a cacheDuration the provider defaultCacheDuration applies', async () => {
  const time = clock();
  const { plugin, runs } = await provider('default-duration', 'Image', undefined, 2 * MINUTE, time.now);
  await plugin.provide('registry.io/a');
  time.advance(2 * MINUTE - 1);
  await plugin.provide('registry.io/a');
  time.advance(1);
  await plugin.provide('registry.io/a');
  assert.deepEqual(await runs(), ['registry.io/a', 'registry.io/a']);
});

test('cache: a cacheDuration of 0 caches nothing', async () => {
  const time = clock();
  const { plugin, runs } = await provider('no-cache', 'Global', '0s', 60 * MINUTE, time.now);
  await plugin.provide('registry.io/a');
  await plugin.provide('registry.io/a');
  assert.deepEqual(await runs(), ['registry.io/a', 'registry.io/a']);
});

test('cache: no cacheDuration and a defaultCacheDuration of 0 caches nothing', async () => {
  const time = clock();
  const { plugin, runs } = await provider('zero-default', 'Global', undefined, 0, time.now);
  await plugin.provide('registry.io/a');
  await plugin.provide('registry.io/a');
  assert.deepEqual(await runs(), ['registry.io/a', 'registry.io/a']);
});

test('cache: concurrent requests for one image share one plugin run', async () => {
  const time = clock();
  const { plugin, runs } = await provider('concurrent', 'Image', '0s', 0, time.now);
  await Promise.all([plugin.provide('registry.io/a'), plugin.provide('registry.io/a'), plugin.provide('registry.io/a')]);
  assert.deepEqual(await runs(), ['registry.io/a']);
});

test('cache: a failed run caches nothing', async () => {
  const log = join(dir, 'flaky.log');
  await writeExecutable(dir, 'flaky', shellPlugin(`cat >/dev/null\necho run >> ${log}\nexit 1`));
  const plugin = new CredentialProviderPlugin({ name: 'flaky', matchImages: ['registry.io'], defaultCacheDuration: MINUTE, apiVersion: V1 }, { binDir: dir });
  await assert.rejects(plugin.provide('registry.io/a'), /exit status 1/);
  await assert.rejects(plugin.provide('registry.io/a'), /exit status 1/);
  assert.equal(await readFile(log, 'utf8'), 'run\nrun\n');
});

test('matching: the provider matches the images of its matchImages only', async () => {
  const time = clock();
  const { plugin } = await provider('matcher', 'Image', '0s', 0, time.now);
  assert.equal(plugin.matches('eu.registry.io/app'), true);
  assert.equal(plugin.matches('registry.io/app'), true);
  assert.equal(plugin.matches('a.b.registry.io/app'), false);
  assert.equal(plugin.matches('docker.io/library/nginx'), false);
});
