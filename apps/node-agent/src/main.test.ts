// The binary as a process: its three commands, their output and exit statuses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeNodeAgentConfiguration } from '@plat/agent-config';
import { respondingPlugin, shellPlugin, writeExecutable } from '@plat/agent-config/testing';

// The binary as it ships: the bundle (scripts/bundle.mjs, made by `make build`).
const MAIN = fileURLToPath(new URL('./bundle/plat-agent.mjs', import.meta.url));
const HEAD = 'apiVersion: agent.config.plat.io/v1beta1\nkind: NodeAgentConfiguration\n';
const V1 = 'credentialprovider.agent.plat.io/v1';

interface Result {
  status: number;
  stdout: string;
  stderr: string;
}

function agent(...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { timeout: 20_000 }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ status, stdout, stderr });
    });
  });
}

let dir: string;
let binDir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plat-agent-'));
  binDir = join(dir, 'bin');
  await mkdir(binDir);
  const answer = (auth: object) => respondingPlugin({ apiVersion: V1, kind: 'CredentialProviderResponse', cacheKeyType: 'Registry', auth });
  await writeExecutable(binDir, 'first', answer({ 'registry.io': { username: 'first', password: 'one' } }));
  await writeExecutable(binDir, 'second', answer({ 'registry.io': { username: 'second', password: 'two' }, 'registry.io/team': { username: 'team', password: 'three' } }));
  await writeExecutable(binDir, 'broken', shellPlugin('cat >/dev/null\necho "no such registry" >&2\nexit 2'));
  await writeExecutable(binDir, 'hangs', shellPlugin('sleep 30'));
});
after(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

function providers(...list: { name: string; matchImages?: string[] }[]): string {
  return `apiVersion: agent.config.plat.io/v1beta1
kind: CredentialProviderConfig
providers:
${list.map(({ name, matchImages = ['registry.io'] }) => `- {name: ${name}, matchImages: ${JSON.stringify(matchImages)}, defaultCacheDuration: 1m, apiVersion: ${V1}}`).join('\n')}
`;
}

test('--dump-defaults prints a fully defaulted configuration that validates', async () => {
  const dumped = await agent('--dump-defaults');
  assert.equal(dumped.status, 0, dumped.stderr);
  assert.match(dumped.stdout, /^syncFrequency: 1m0s$/m);
  const config = decodeNodeAgentConfiguration(dumped.stdout);
  assert.equal(config.kind, 'NodeAgentConfiguration');
  assert.equal(config.port, 10250);
  assert.equal(config.contentType, 'application/vnd.plat.protobuf');
  const validated = await agent('--config', await file('dumped.yaml', dumped.stdout), '--validate');
  assert.equal(validated.status, 0, validated.stderr);
  assert.equal(validated.stdout, dumped.stdout);
});

test('--validate prints the defaulted configuration as YAML', async () => {
  const result = await agent('--config', await file('valid.yaml', `${HEAD}port: 10443\nnodeStatusUpdateFrequency: 20s\n`), '--validate');
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '');
  const config = decodeNodeAgentConfiguration(result.stdout);
  assert.equal(config.port, 10443);
  assert.equal(config.nodeStatusReportFrequency, 20_000);
  assert.equal(config.maxPods, 110);
});

test('--validate accepts JSON', async () => {
  const result = await agent('--validate', '--config', await file('valid.json', '{"apiVersion":"agent.config.plat.io/v1beta1","kind":"NodeAgentConfiguration","maxPods":20}'));
  assert.equal(result.status, 0, result.stderr);
  assert.equal(decodeNodeAgentConfiguration(result.stdout).maxPods, 20);
});

test('--validate refuses a locked GA gate set against its lock, and warns of a GA gate set', async () => {
  const locked = await file('locked.yaml', `${HEAD}featureGates: {CPUManager: false}\n`);
  const refused = await agent('--config', locked, '--validate');
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /featureGates\[CPUManager\]: Invalid value: false: cannot set feature gate CPUManager to false, feature is locked to true/);
  const warned = await agent('--config', await file('ga.yaml', `${HEAD}featureGates: {TopologyManager: true}\n`), '--validate');
  assert.equal(warned.status, 0, warned.stderr);
  assert.equal(warned.stderr, 'Warning: Setting GA feature gate TopologyManager=true. It will be removed in a future release.\n');
});

test('--validate prints every validation error and exits 1', async () => {
  const path = await file('invalid.yaml', `${HEAD}port: 70000\noomScoreAdj: 2000\nimageGCLowThresholdPercent: 90\ncgroupDriver: nope\n`);
  const result = await agent('--config', path, '--validate');
  assert.equal(result.status, 1);
  assert.equal(result.stdout, '');
  assert.equal(
    result.stderr,
    `Error: ${path} is not a valid NodeAgentConfiguration (4 errors):
  port: Invalid value: 70000: must be between 1 and 65535, inclusive
  oomScoreAdj: Invalid value: 2000: must be between -1000 and 1000, inclusive
  imageGCLowThresholdPercent: Invalid value: 90: must be less than imageGCHighThresholdPercent (85)
  cgroupDriver: Unsupported value: "nope": supported values: "cgroupfs", "systemd"
`,
  );
});

test('--validate: unknown and duplicate fields are warnings (lenient decoding, the last duplicate winning); a file without other problems is valid', async () => {
  const path = await file('lenient.yaml', `${HEAD}port: 1\nport: 2\nauthentication:\n  webhook:\n    ttl: 1m\n`);
  const result = await agent('--config', path, '--validate');
  assert.equal(result.status, 0, result.stderr);
  assert.equal(
    result.stderr,
    `Warning: ${path}: duplicate field "port" (decoded leniently: the last value is used)\n` +
      `Warning: ${path}: unknown field "authentication.webhook.ttl" (decoded leniently: the field is ignored)\n`,
  );
  assert.equal(decodeNodeAgentConfiguration(result.stdout).port, 2);
});

test('--validate reports every problem of a file in one run: unknown fields, wrong types and invalid values', async () => {
  const path = await file('many.yaml', `${HEAD}bogus: 1\nmaxPods: many\nport: 70000\nhealthzPort: -1\nauthentication:\n  webhook:\n    ttl: 1m\n`);
  const result = await agent('--config', path, '--validate');
  assert.equal(result.status, 1);
  const lines = result.stderr.trimEnd().split('\n');
  assert.deepEqual(lines.slice(0, 2), [
    `Warning: ${path}: unknown field "bogus" (decoded leniently: the field is ignored)`,
    `Warning: ${path}: unknown field "authentication.webhook.ttl" (decoded leniently: the field is ignored)`,
  ]);
  assert.equal(lines[2], `Error: ${path} is not a valid NodeAgentConfiguration (3 errors):`);
  assert.match(lines[3]!, /^  maxPods: Invalid value: "many": expected an integer \(int32\)$/);
  assert.match(lines[4]!, /^  port: Invalid value: 70000: /);
  assert.match(lines[5]!, /^  healthzPort: Invalid value: -1: /);
});

test('--validate with a missing file exits 1', async () => {
  const result = await agent('--config', join(dir, 'nope.yaml'), '--validate');
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^Error: could not read the configuration file: ENOENT/);
});

test('an unknown flag is a one-line error naming it, exit 2', async () => {
  const result = await agent('--dump-defaults', '--frobnicate=yes');
  assert.equal(result.status, 2);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr, 'Error: unknown flag: --frobnicate\n');
});

test('running the agent without a kubeconfig is a usage error, exit 2', async () => {
  const result = await agent('--config', await file('run.yaml', HEAD));
  assert.equal(result.status, 2);
  assert.equal(result.stderr, 'Error: running the agent needs --kubeconfig FILE\n');
});

test('running the agent with a kubeconfig that cannot be read exits 1 with the reason', async () => {
  const result = await agent('--config', await file('run.yaml', HEAD), '--kubeconfig', join(dir, 'nope.kubeconfig'), '--cert-dir', dir);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /Error: cannot read kubeconfig .*nope\.kubeconfig/);
});

test('--help prints the usage', async () => {
  const result = await agent('--help');
  assert.equal(result.status, 0);
  assert.match(result.stdout, /plat-agent credentials IMAGE --config FILE --bin-dir DIR/);
  assert.match(result.stdout, /^Its container runtime is simulated: it runs no containers and no pods\.$/m);
});

test('credentials prints the merged auth map as JSON, the earlier provider winning', async () => {
  const config = await file('providers.yaml', providers({ name: 'first' }, { name: 'second' }, { name: 'broken', matchImages: ['other.io'] }));
  const result = await agent('credentials', 'registry.io/team/app', '--config', config, '--bin-dir', binDir);
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), {
    'registry.io': { username: 'first', password: 'one' },
    'registry.io/team': { username: 'team', password: 'three' },
  });
});

test('credentials for an image no provider matches prints {}', async () => {
  const config = await file('providers-nomatch.yaml', providers({ name: 'first' }));
  const result = await agent('credentials', 'docker.io/library/nginx', '--config', config, '--bin-dir', binDir);
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), {});
});

test('credentials with a failing provider prints its error and no credentials from it, exit 1', async () => {
  const config = await file('providers-broken.yaml', providers({ name: 'broken' }));
  const result = await agent('credentials', 'registry.io/app', '--config', config, '--bin-dir', binDir);
  assert.equal(result.status, 1);
  assert.deepEqual(JSON.parse(result.stdout), {});
  assert.equal(result.stderr, 'Error: credential provider plugin broken for image registry.io/app: exit status 2: no such registry\n');
});

test('credentials with a provider that hangs gives up after --plugin-timeout', async () => {
  const config = await file('providers-hang.yaml', providers({ name: 'hangs' }));
  const started = Date.now();
  const result = await agent('credentials', 'registry.io/app', '--config', config, '--bin-dir', binDir, '--plugin-timeout', '300ms');
  assert.equal(result.status, 1);
  assert.equal(result.stderr, 'Error: credential provider plugin hangs for image registry.io/app: timed out after 300ms\n');
  assert.ok(Date.now() - started < 10_000);
});

test('credentials with an invalid configuration prints every error, exit 1', async () => {
  const config = await file(
    'providers-invalid.yaml',
    `apiVersion: agent.config.plat.io/v1beta1\nkind: CredentialProviderConfig\nproviders:\n- {name: missing, matchImages: ["registry.io/*"], apiVersion: ${V1}}\n`,
  );
  const result = await agent('credentials', 'registry.io/app', '--config', config, '--bin-dir', binDir);
  assert.equal(result.status, 1);
  assert.equal(
    result.stderr,
    `Error: ${config} is not a valid CredentialProviderConfig (3 errors):
  providers[0].matchImages[0]: Invalid value: "registry.io/*": match image is invalid: globs are allowed only in the domain, not in the path
  providers[0].defaultCacheDuration: Required value
  providers[0].name: Invalid value: "missing": plugin binary executable ${join(binDir, 'missing')} did not exist
`,
  );
});

test('credentials with a missing bin dir exits 1', async () => {
  const config = await file('providers-nobin.yaml', providers({ name: 'first' }));
  const result = await agent('credentials', 'registry.io/app', '--config', config, '--bin-dir', join(dir, 'no-bin'));
  assert.equal(result.status, 1);
  assert.equal(result.stderr, `Error: plugin binary directory ${join(dir, 'no-bin')} did not exist\n`);
});

test('credentials without an image is a usage error, exit 2', async () => {
  const result = await agent('credentials', '--config', 'x', '--bin-dir', binDir);
  assert.equal(result.status, 2);
  assert.equal(result.stderr, 'Error: credentials needs an IMAGE argument\n');
});
