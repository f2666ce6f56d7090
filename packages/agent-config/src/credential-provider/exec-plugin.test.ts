import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodePlugin, pluginRuns, respondingPlugin, shellPlugin, writeExecutable } from '../testing.js';
import { CredentialPluginError, execPlugin, type ExecPluginOptions } from './exec-plugin.js';

const V1 = 'credentialprovider.agent.plat.io/v1';
const IMAGE = 'registry.io/team/app';
const okResponse = {
  apiVersion: V1,
  kind: 'CredentialProviderResponse',
  cacheKeyType: 'Registry',
  cacheDuration: '10m',
  auth: { 'registry.io': { username: 'user', password: 'secret' } },
};

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plat-plugins-'));
});
after(() => rm(dir, { recursive: true, force: true }));

async function plugin(name: string, script: string, extra: Partial<ExecPluginOptions> = {}): Promise<ExecPluginOptions> {
  await writeExecutable(dir, name, script);
  return { name, binDir: dir, apiVersion: V1, timeoutMs: 5000, ...extra };
}

test('exec: the plugin gets the request on stdin, its args, and env over the host env', async () => {
  const log = join(dir, 'echo.log');
  const options = await plugin('echo', respondingPlugin(okResponse), {
    args: ['get-credentials', '--verbose'],
    env: [{ name: 'PLUGIN_VAR', value: 'from-config' }, { name: 'PLUGIN_LOG', value: log }],
    hostEnv: { PATH: process.env.PATH, PLUGIN_VAR: 'from-host' },
  });
  const response = await execPlugin(options, IMAGE);
  assert.deepEqual(response, { cacheKeyType: 'Registry', cacheDurationMs: 600_000, auth: okResponse.auth });
  assert.deepEqual(await pluginRuns(log), [
    { request: { apiVersion: V1, kind: 'CredentialProviderRequest', image: IMAGE }, args: ['get-credentials', '--verbose'], pluginVar: 'from-config' },
  ]);
});

test('exec: the host environment reaches the plugin', async () => {
  const log = join(dir, 'host-env.log');
  const options = await plugin('host-env', respondingPlugin(okResponse), { hostEnv: { ...process.env, PLUGIN_LOG: log, PLUGIN_VAR: 'host' } });
  await execPlugin(options, IMAGE);
  assert.equal((await pluginRuns(log))[0]!.pluginVar, 'host');
});

test('exec: the request carries the provider apiVersion, and a response without cacheDuration leaves it to the default', async () => {
  const beta = 'credentialprovider.agent.plat.io/v1beta1';
  const options = await plugin('beta', nodePlugin(`  respond({ apiVersion: request.apiVersion, kind: 'CredentialProviderResponse', cacheKeyType: 'Image', auth: {} });`), { apiVersion: beta });
  assert.deepEqual(await execPlugin(options, IMAGE), { cacheKeyType: 'Image', cacheDurationMs: undefined, auth: {} });
});

const failures: { name: string; script: string; message: string | RegExp; timeoutMs?: number }[] = [
  { name: 'a failing exit status, with stderr', script: shellPlugin('cat >/dev/null\necho "no credentials for you" >&2\nexit 3'), message: 'exit status 3: no credentials for you' },
  { name: 'a plugin killed by a signal', script: shellPlugin('kill -9 $$'), message: 'killed by SIGKILL' },
  { name: 'a hang past the timeout', script: shellPlugin('sleep 30'), message: 'timed out after 300ms', timeoutMs: 300 },
  { name: 'malformed JSON', script: shellPlugin('cat >/dev/null\necho "{\\"apiVersion\\": "'), message: 'the response on stdout is not a JSON object' },
  { name: 'text that is not JSON', script: shellPlugin('cat >/dev/null\necho "password=hunter2"'), message: 'the response on stdout is not a JSON object' },
  { name: 'no output at all', script: shellPlugin('cat >/dev/null'), message: 'the plugin wrote no response on stdout' },
  {
    name: 'an apiVersion mismatch',
    script: respondingPlugin({ ...okResponse, apiVersion: 'credentialprovider.agent.plat.io/v1beta1' }),
    message: `apiVersion from credential plugin response did not match expected apiVersion:${V1}, actual apiVersion:credentialprovider.agent.plat.io/v1beta1`,
  },
  { name: 'another kind', script: respondingPlugin({ ...okResponse, kind: 'CredentialProviderRequest' }), message: 'the response\'s kind is "CredentialProviderRequest", expected CredentialProviderResponse' },
  { name: 'an unknown field', script: respondingPlugin({ ...okResponse, token: 'abc' }), message: 'error decoding the response: unknown field "token"' },
  { name: 'a wrong type, without quoting the value', script: respondingPlugin({ ...okResponse, auth: { 'registry.io': { username: 'u', password: 12345 } } }), message: 'error decoding the response: auth[registry.io].password: invalid value' },
  { name: 'a missing cacheKeyType', script: respondingPlugin({ ...okResponse, cacheKeyType: undefined }), message: 'the response did not give a valid cacheKeyType: "" (must be Image, Registry or Global)' },
  { name: 'an unknown cacheKeyType', script: respondingPlugin({ ...okResponse, cacheKeyType: 'Forever' }), message: 'the response did not give a valid cacheKeyType: "Forever" (must be Image, Registry or Global)' },
];

for (const [i, { name, script, message, timeoutMs }] of failures.entries()) {
  test(`exec failure: ${name}`, async () => {
    const options = await plugin(`failing-${i}`, script, timeoutMs ? { timeoutMs } : {});
    const started = Date.now();
    await assert.rejects(execPlugin(options, IMAGE), (error: unknown) => {
      assert.ok(error instanceof CredentialPluginError);
      const expected = `credential provider plugin failing-${i} for image ${IMAGE}: `;
      assert.ok(error.message.startsWith(expected), error.message);
      if (typeof message === 'string') assert.equal(error.message.slice(expected.length), message);
      else assert.match(error.message, message);
      assert.doesNotMatch(error.message, /hunter2|secret|12345/);
      return true;
    });
    if (timeoutMs) assert.ok(Date.now() - started < 5000, 'the timeout does not wait for the plugin');
  });
}

test('exec failure: a plugin that is not there', async () => {
  await assert.rejects(execPlugin({ name: 'absent', binDir: dir, apiVersion: V1 }, IMAGE), {
    name: 'CredentialPluginError',
    message: `credential provider plugin absent for image ${IMAGE}: could not run ${join(dir, 'absent')}: spawn ${join(dir, 'absent')} ENOENT`,
  });
});
