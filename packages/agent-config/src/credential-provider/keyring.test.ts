import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginRuns, respondingPlugin, shellPlugin, writeExecutable } from '../testing.js';
import { CredentialProviderKeyring } from './keyring.js';
import type { CredentialProvider } from './schema.js';

const V1 = 'credentialprovider.agent.plat.io/v1';
const response = (auth: Record<string, { username: string; password: string }>) => ({
  apiVersion: V1,
  kind: 'CredentialProviderResponse',
  cacheKeyType: 'Image',
  cacheDuration: '0s',
  auth,
});

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plat-keyring-'));
  await writeExecutable(dir, 'first', respondingPlugin(response({ 'registry.io': { username: 'first', password: '1' }, 'registry.io/team': { username: 'first-team', password: '1' } })));
  await writeExecutable(dir, 'second', respondingPlugin(response({ 'registry.io': { username: 'second', password: '2' }, '*.registry.io': { username: 'second-glob', password: '2' } })));
  await writeExecutable(dir, 'broken', shellPlugin('cat >/dev/null\necho "token expired" >&2\nexit 1'));
  await writeExecutable(dir, 'elsewhere', respondingPlugin(response({ 'other.io': { username: 'other', password: '3' } })));
});
after(() => rm(dir, { recursive: true, force: true }));

const provider = (name: string, matchImages: string[], env: CredentialProvider['env'] = []): CredentialProvider => ({
  name,
  matchImages,
  defaultCacheDuration: 0,
  apiVersion: V1,
  env,
});

test('keyring: two providers merge, the earlier winning on overlapping keys', async () => {
  const keyring = new CredentialProviderKeyring({ providers: [provider('first', ['registry.io']), provider('second', ['registry.io'])] }, { binDir: dir });
  const { auth, errors } = await keyring.lookup('registry.io/team/app');
  assert.deepEqual(errors, []);
  assert.deepEqual(auth, {
    'registry.io': { username: 'first', password: '1' },
    'registry.io/team': { username: 'first-team', password: '1' },
    '*.registry.io': { username: 'second-glob', password: '2' },
  });
});

test('keyring: the order of the list decides, not which plugin answers first', async () => {
  const keyring = new CredentialProviderKeyring({ providers: [provider('second', ['registry.io']), provider('first', ['registry.io'])] }, { binDir: dir });
  const { auth } = await keyring.lookup('registry.io/app');
  assert.deepEqual(auth['registry.io'], { username: 'second', password: '2' });
});

test('keyring: only providers whose matchImages match are run', async () => {
  const log = join(dir, 'elsewhere.log');
  const keyring = new CredentialProviderKeyring(
    { providers: [provider('first', ['registry.io']), provider('elsewhere', ['other.io'], [{ name: 'PLUGIN_LOG', value: log }])] },
    { binDir: dir },
  );
  const { auth } = await keyring.lookup('registry.io/app');
  assert.deepEqual(Object.keys(auth), ['registry.io', 'registry.io/team']);
  assert.deepEqual(await pluginRuns(log), []);
});

test('keyring: an image no provider matches gets no credentials and no error', async () => {
  const keyring = new CredentialProviderKeyring({ providers: [provider('first', ['registry.io'])] }, { binDir: dir });
  assert.deepEqual(await keyring.lookup('docker.io/library/nginx'), { auth: {}, errors: [] });
});

test('keyring: a failing provider gives an error and no credentials; the others still give theirs', async () => {
  const keyring = new CredentialProviderKeyring({ providers: [provider('broken', ['registry.io']), provider('second', ['registry.io'])] }, { binDir: dir });
  const { auth, errors } = await keyring.lookup('registry.io/app');
  assert.deepEqual(auth, { 'registry.io': { username: 'second', password: '2' }, '*.registry.io': { username: 'second-glob', password: '2' } });
  assert.deepEqual(
    errors.map((error) => error.message),
    ['credential provider plugin broken for image registry.io/app: exit status 1: token expired'],
  );
});
