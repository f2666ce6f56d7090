// `make run`'s launcher (scripts/run-local.mjs) as a user starts it, in a temporary folder: the
// controller-manager beside the apiserver, tokens from the generated signing key, and the SQLite
// backend keeping every acknowledged write through a kill -9 of the apiserver, a watch resuming
// from a resourceVersion of before the kill.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '@plat/storage/testing';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = 90_000;
const run = promisify(execFile);

interface Launcher {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts the launcher and waits for its banner. */
async function launch(dir: string, port: number): Promise<Launcher> {
  const child = spawn(process.execPath, ['scripts/run-local.mjs', `--dir=${dir}`, `--port=${port}`, '--api-domain=k8s.io'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!output.includes('Stop with Ctrl-C.')) {
    if (child.exitCode !== null) throw new Error(`the launcher exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`no banner within ${START_TIMEOUT_MS} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => output, exited };
}

interface RunState {
  server: string;
  kubeconfig: string;
  tokenFile: string;
  processes: Record<'apiserver' | 'controller-manager', { pid: number }>;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Event {
  type: string;
  object: { metadata: { name: string; resourceVersion: string } };
}

/** A watch over HTTPS from `resourceVersion`, until `done` says it has seen enough (or 20 s pass). */
function watchUntil(url: string, ca: string, token: string, done: (events: Event[]) => boolean): Promise<Event[]> {
  return new Promise((resolve, reject) => {
    const events: Event[] = [];
    const req = request(url, { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
      let buffered = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as Event);
        if (done(events)) {
          req.destroy();
          resolve(events);
        }
      });
    });
    req.setTimeout(20_000, () => {
      req.destroy();
      resolve(events);
    });
    req.on('error', (error) => (done(events) ? resolve(events) : reject(error)));
    req.end();
  });
}

describe('make run: the launcher', () => {
  let dir: string;
  let port: number;
  let launcher: Launcher | undefined;
  let state: RunState;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run('kubectl', [`--kubeconfig=${state.kubeconfig}`, ...args], {
      env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'kube-cache') },
    });
    return stdout;
  };
  const readState = async (): Promise<RunState> => JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')) as RunState;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plat-e2e-run-'));
    port = await freePort();
    launcher = await launch(dir, port);
    state = await readState();
  });
  after(async () => {
    if (launcher && launcher.child.exitCode === null) {
      launcher.child.kill('SIGINT');
      await launcher.exited;
    }
    for (const { pid } of Object.values(state?.processes ?? {})) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('prints a line per process and a banner with the URL, the kubeconfig and where the data lives', () => {
    const output = launcher!.output();
    assert.match(output, /^plat-apiserver\s+ready at https:\/\/127\.0\.0\.1:\d+/m);
    assert.match(output, /^plat-controller-manager\s+ready, leader-elected/m);
    assert.ok(output.includes(`kubeconfig:  export KUBECONFIG=${state.kubeconfig}`), output);
    assert.ok(output.includes(`rm -rf ${join(dir, 'data')}`), output);
    assert.doesNotMatch(output, /"level":/, 'JSON log lines go to the log files');
  });

  it('namespaces are deleted, default service accounts made, aggregated roles filled; tokens are issued', async () => {
    await kubectl('create', 'namespace', 'demo');
    await kubectl('-n', 'demo', 'create', 'serviceaccount', 'app');
    await kubectl('-n', 'demo', 'create', 'role', 'reader', '--verb=get,list,watch', '--resource=serviceaccounts');
    await kubectl('-n', 'demo', 'create', 'rolebinding', 'app-reads', '--role=reader', '--serviceaccount=demo:app');
    assert.equal((await kubectl('-n', 'demo', 'auth', 'can-i', 'list', 'serviceaccounts', '--as=system:serviceaccount:demo:app')).trim(), 'yes');
    const token = (await kubectl('-n', 'demo', 'create', 'token', 'app')).trim();
    assert.match(token, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    const whoami = await kubectl('auth', 'whoami', `--token=${token}`, '-o', 'jsonpath={.status.userInfo.username}');
    assert.equal(whoami, 'system:serviceaccount:demo:app');
    // The service-account controller makes "default" in every namespace.
    for (let i = 0; !(await kubectl('-n', 'demo', 'get', 'serviceaccounts', '-o', 'name')).includes('serviceaccount/default'); i++) {
      assert.ok(i < 100, 'no default service account in demo');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const admin = JSON.parse(await kubectl('get', 'clusterrole', 'admin', '-o', 'json')) as { rules?: unknown[] };
    assert.ok((admin.rules ?? []).length > 0, 'the admin ClusterRole has the rules aggregated into it');
    // kubectl waits until the namespace is gone: the namespace controller empties and finalizes it.
    await kubectl('delete', 'namespace', 'demo', '--timeout=60s');
    await assert.rejects(kubectl('get', 'namespace', 'demo'), /NotFound|not found/);
  });

  it('keeps every acknowledged write through a kill -9 of the apiserver; a watch resumes from before it', async () => {
    await kubectl('create', 'namespace', 'keep');
    const names = Array.from({ length: 20 }, (_, i) => `robot-${String(i).padStart(2, '0')}`);
    const written = new Map<string, string>();
    let midway = '';
    for (const [i, name] of names.entries()) {
      const created = JSON.parse(await kubectl('-n', 'keep', 'create', 'serviceaccount', name, '-o', 'json')) as Event['object'];
      written.set(name, created.metadata.resourceVersion);
      if (i === 9) midway = created.metadata.resourceVersion;
    }

    process.kill(state.processes.apiserver.pid, 'SIGKILL');
    // The launcher notices, stops the controller-manager and exits.
    assert.equal(await launcher!.exited, 1);
    assert.match(launcher!.output(), /apiserver exited \(SIGKILL\)/);
    assert.ok(!isAlive(state.processes['controller-manager'].pid), 'the controller-manager is stopped too');

    launcher = await launch(dir, port);
    state = await readState();
    const listed = JSON.parse(await kubectl('-n', 'keep', 'get', 'serviceaccounts', '-o', 'json')) as { items: Event['object'][] };
    const found = new Map(listed.items.map((item) => [item.metadata.name, item.metadata.resourceVersion]));
    for (const [name, resourceVersion] of written) assert.equal(found.get(name), resourceVersion, `${name} as written before the kill`);

    const ca = await readFile(join(dir, 'certs', 'ca.crt'), 'utf8');
    const token = (await readFile(state.tokenFile, 'utf8')).split(',')[0]!;
    const url = `${state.server}/api/v1/namespaces/keep/serviceaccounts?watch=1&resourceVersion=${midway}`;
    const later = names.slice(10);
    const events = await watchUntil(url, ca, token, (seen) => later.every((name) => seen.some((event) => event.object.metadata.name === name)));
    const added = events.filter((event) => event.type === 'ADDED').map((event) => event.object.metadata.name);
    assert.deepEqual(added.filter((name) => name.startsWith('robot-')), later, 'the writes after the resourceVersion, in order, and none before');
    for (const event of events) assert.ok(Number(event.object.metadata.resourceVersion) > Number(midway));
  });

  it('Ctrl-C stops both processes', async () => {
    launcher!.child.kill('SIGINT');
    assert.equal(await launcher!.exited, 0);
    for (const [name, { pid }] of Object.entries(state.processes)) assert.ok(!isAlive(pid), `${name} (${pid}) still runs`);
  });
});
