// The binary as a process: exit codes, the serving log line, readiness, SIGTERM, and an etcd that
// comes up after the server.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The binary as it ships: the bundle (scripts/bundle.mjs, made by `make build`).
const MAIN = fileURLToPath(new URL('./bundle/plat-apiserver.mjs', import.meta.url));

const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-main-'));
  dirs.push(dir);
  return dir;
}

interface Run {
  child: ChildProcess;
  stdout: string[];
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  let stderr = '';
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    stdout.push(...parts);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout, stderr: () => stderr, exit };
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The port from the JSON log line {"msg":"serving","port":...}. */
function servingPort(run: Run): Promise<number> {
  return waitFor('the serving log line', () => {
    if (run.child.exitCode !== null) throw new Error(`exited early: ${run.stderr()}\n${run.stdout.join('\n')}`);
    for (const line of run.stdout) {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === 'serving' && typeof entry.port === 'number') return entry.port;
    }
    return undefined;
  });
}

function get(port: number, path: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    httpsRequest({ host: '127.0.0.1', port, path, ca, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const flagErrors: { name: string; args: string[]; mentions: string; code: number }[] = [
  { name: 'unknown flag', args: ['--foo'], mentions: '--foo', code: 2 },
  { name: 'bad port', args: ['--secure-port=abc'], mentions: '--secure-port', code: 2 },
  { name: 'a bad --runtime-config value', args: ['--storage-backend=memory', '--runtime-config=api/all=maybe'], mentions: '--runtime-config', code: 2 },
  {
    name: 'an unknown API in --runtime-config',
    args: ['--storage-backend=memory', '--secure-port=0', '--bind-address=127.0.0.1', '--runtime-config=nosuch.plat.io/v1'],
    mentions: 'unknown API "nosuch.plat.io/v1"',
    code: 1,
  },
  {
    name: 'a missing etcd client key',
    args: ['--etcd-servers=https://127.0.0.1:1', '--secure-port=0', '--bind-address=127.0.0.1', '--etcd-certfile=/nonexistent/client.crt', '--etcd-keyfile=/nonexistent/client.key'],
    mentions: '--etcd-certfile: cannot read /nonexistent/client.crt',
    code: 1,
  },
  {
    name: 'an etcd client certificate without its key',
    args: ['--etcd-servers=https://127.0.0.1:1', '--secure-port=0', '--bind-address=127.0.0.1', '--etcd-certfile=/nonexistent/client.crt'],
    mentions: 'flags --etcd-certfile and --etcd-keyfile must be given together',
    code: 2,
  },
  {
    name: 'an unreadable etcd CA file',
    args: ['--etcd-servers=https://127.0.0.1:1', '--secure-port=0', '--bind-address=127.0.0.1', '--etcd-cafile=/nonexistent/ca.crt'],
    mentions: '--etcd-cafile: cannot read /nonexistent/ca.crt',
    code: 1,
  },
  {
    name: 'a locked GA feature gate turned off',
    args: ['--storage-backend=memory', '--secure-port=0', '--feature-gates=ServerSideApply=false'],
    mentions: 'cannot set feature gate ServerSideApply to false, feature is locked to true',
    code: 2,
  },
  {
    name: 'a --watch-cache-sizes entry without its size',
    args: ['--storage-backend=memory', '--secure-port=0', '--watch-cache-sizes=configmaps'],
    mentions: 'invalid value of watch cache size: configmaps',
    code: 2,
  },
  { name: 'an unreadable client CA file', args: ['--storage-backend=memory', '--secure-port=0', '--bind-address=127.0.0.1', '--client-ca-file=/nonexistent/ca.crt'], mentions: '--client-ca-file', code: 1 },
];

for (const { name, args, mentions, code } of flagErrors) {
  test(`process: ${name} exits ${code} with one line on stderr`, async () => {
    const run = start(args);
    assert.equal(await run.exit, code);
    const lines = run.stderr().trimEnd().split('\n');
    assert.equal(lines.length, 1, run.stderr());
    assert.match(lines[0]!, /^Error: /);
    assert.ok(lines[0]!.includes(mentions), lines[0]);
  });
}

test('process: a malformed token file fails startup naming the file and line', async () => {
  const dir = await tempDir();
  const tokens = join(dir, 'tokens.csv');
  await writeFile(tokens, 'good,alice,1\nbad,line\n');
  const run = start(['--storage-backend=memory', '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${dir}`, `--token-auth-file=${tokens}`]);
  assert.equal(await run.exit, 1);
  const lines = run.stderr().trimEnd().split('\n');
  assert.equal(lines.length, 1, run.stderr());
  assert.ok(lines[0]!.includes(tokens) && lines[0]!.includes('line 2'), lines[0]);
});

test('process: serves /readyz with the memory backend and exits 0 on SIGTERM', async () => {
  const certDir = await tempDir();
  const run = start(['--storage-backend=memory', '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${certDir}`]);
  try {
    const port = await servingPort(run);
    const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
    assert.deepEqual(await get(port, '/readyz', ca), { status: 200, body: 'ok' });
    run.child.kill('SIGTERM');
    assert.equal(await run.exit, 0);
    assert.ok(run.stdout.some((line) => line.includes('"shutdown: complete"')));
  } finally {
    run.child.kill('SIGKILL');
  }
});

test('process: an audit policy that upstream would refuse fails startup naming the file and the problem', async () => {
  const dir = await tempDir();
  const policy = join(dir, 'audit.yaml');
  await writeFile(policy, 'apiVersion: audit.plat.io/v1\nkind: Policy\nrules: [{level: Loud}]\n');
  const run = start(['--storage-backend=memory', '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${dir}`, `--audit-policy-file=${policy}`]);
  assert.equal(await run.exit, 1);
  const lines = run.stderr().trimEnd().split('\n');
  assert.equal(lines.length, 1, run.stderr());
  assert.ok(lines[0]!.includes(policy) && lines[0]!.includes('rules[0].level: Unsupported value: "Loud"'), lines[0]);
});

test('process: a GA feature gate set to its value is accepted with upstream\'s warning in the log', async () => {
  const certDir = await tempDir();
  const run = start(['--storage-backend=memory', '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${certDir}`, '--feature-gates=ServerSideApply=true']);
  try {
    await servingPort(run);
    const warning = run.stdout.map((line) => JSON.parse(line) as { level: number; msg: string }).find((line) => line.msg.startsWith('Setting GA'));
    assert.deepEqual(warning && [warning.level, warning.msg], [40, 'Setting GA feature gate ServerSideApply=true. It will be removed in a future release.']);
  } finally {
    run.child.kill('SIGKILL');
  }
});

test('process: --default-watch-cache-size is taken with pflag\'s deprecation warning, a non-zero --watch-cache-sizes with upstream\'s', async () => {
  const certDir = await tempDir();
  const run = start(['--storage-backend=memory', '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${certDir}`, '--default-watch-cache-size=0', '--watch-cache-sizes=secrets#100,configmaps#0']);
  try {
    await servingPort(run);
    const warnings = run.stdout.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level === 40 && /watch-cache-size/.test(line.msg));
    assert.deepEqual(
      warnings.map((line) => line.msg),
      [
        'Flag --default-watch-cache-size has been deprecated, watch caches are sized automatically and this flag will be removed in a future version',
        'Dropping watch-cache-size for secrets - watchCache size is now dynamic',
      ],
    );
  } finally {
    run.child.kill('SIGKILL');
  }
});

test('process: starts with etcd unreachable, /readyz fails, and recovers when etcd comes up', { timeout: 60_000 }, async (t) => {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const dir = await tempDir();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const run = start([
    `--etcd-servers=${endpoint}`,
    '--etcd-healthcheck-timeout=1s',
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    `--cert-dir=${dir}`,
  ]);
  let etcd: ChildProcess | undefined;
  t.after(() => {
    run.child.kill('SIGKILL');
    etcd?.kill('SIGKILL');
  });
  const port = await servingPort(run);
  const ca = await readFile(join(dir, 'ca.crt'), 'utf8');
  const down = await get(port, '/readyz', ca);
  assert.equal(down.status, 500);
  assert.match(down.body, /\[-\]etcd failed: /);
  assert.deepEqual(await get(port, '/livez', ca), { status: 200, body: 'ok' });

  const peer = `http://127.0.0.1:${peerPort}`;
  etcd = spawn(
    'etcd',
    [
      '--name=test',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${endpoint}`,
      `--advertise-client-urls=${endpoint}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=test=${peer}`,
      '--log-level=error',
    ],
    { stdio: 'ignore' },
  );
  await waitFor('readyz to recover', async () => ((await get(port, '/readyz', ca)).status === 200 ? true : undefined), 40_000);

  run.child.kill('SIGTERM');
  assert.equal(await run.exit, 0);
});
