// `make run`: a whole control plane on this machine, kept in one folder (--dir, default .run): one
// plat-apiserver on the embedded SQLite backend (its data in <dir>/data, kept across restarts) and a
// leader-elected plat-controller-manager acting with its controllers' own service-account
// credentials, as `make cluster` runs them. Made on first start and reused after: an admin token and
// the controller-manager's (tokens.csv), the serving CA and certificate (certs/), a service-account
// signing key pair, the kubeconfigs. Each process logs to <dir>/logs/<name>.log; the terminal gets a
// line per process, the banner, and the warnings and errors of either as short lines. Ctrl-C (or
// SIGTERM) stops both, the controller-manager first; when either exits on its own, the other is
// stopped too.
//
//   node scripts/run-local.mjs [--dir=.run] [--port=6443] [--api-domain=plat.io]
//                              [--storage-backend=sqlite|memory]
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { request } from 'node:https';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSelfSignedCert } from '@plat/serving';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, ...value] = arg.replace(/^--/, '').split('=');
    return [name, value.join('=')];
  }),
);
const dir = resolve(args.dir || '.run');
const port = Number(args.port || 6443);
const apiDomain = args['api-domain'] || 'plat.io';
const backend = args['storage-backend'] || 'sqlite';
const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 60_000;
// The issuer of service-account tokens: the name kubeadm and k3s give it.
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

const certDir = join(dir, 'certs');
const dataDir = join(dir, 'data');
const logDir = join(dir, 'logs');
const tokenFile = join(dir, 'tokens.csv');
const kubeconfig = join(dir, 'kubeconfig');
const managerKubeconfig = join(dir, 'controller-manager.kubeconfig');
const signingKey = join(dir, 'service-account.key');
const publicKey = join(dir, 'service-account.pub');
const stateFile = join(dir, 'run.json');
const server = `https://${HOST}:${port}`;
/** A path as the user would type it from where they started make. */
const shown = (path) => (relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path) || '.');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fail = (message) => {
  process.stderr.write(`run: ${message}\n`);
  process.exit(1);
};

if (!['sqlite', 'memory'].includes(backend)) fail(`--storage-backend must be sqlite or memory, not ${JSON.stringify(backend)}`);
if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`--port must be a port number, not ${JSON.stringify(args.port)}`);

const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

/** A free loopback port (the kernel's choice; released before use). */
const freePort = () =>
  new Promise((done, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, HOST, () => {
      const { port: free } = probe.address();
      probe.close(() => done(free));
    });
  });

/** GET over TLS: the status, 0 when nothing answers. `ca` undefined: a self-signed peer on loopback. */
const httpsStatus = (url, ca) =>
  new Promise((done) => {
    const req = request(url, { agent: false, timeout: 2000, ...(ca ? { ca } : { rejectUnauthorized: false }) }, (res) => {
      res.resume();
      done(res.statusCode);
    });
    req.on('error', () => done(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });

function kubeconfigFor(ca, user, token) {
  return `apiVersion: v1
kind: Config
clusters:
- name: plat-local
  cluster:
    server: ${server}
    certificate-authority-data: ${Buffer.from(ca).toString('base64')}
users:
- name: ${user}
  user:
    token: ${token}
contexts:
- name: plat-local
  context:
    cluster: plat-local
    user: ${user}
current-context: plat-local
`;
}

// A launcher killed without its Ctrl-C leaves its processes running: say so rather than start a second set.
if (existsSync(stateFile)) {
  const previous = JSON.parse(readFileSync(stateFile, 'utf8'));
  const runs = ({ pid, match }) => {
    try {
      return isAlive(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(match);
    } catch {
      return false;
    }
  };
  const running = Object.values(previous.processes ?? {}).filter(runs);
  if (running.length) fail(`Plat is already running from ${shown(dir)} (PIDs ${running.map(({ pid }) => pid).join(' ')}): stop it with Ctrl-C where it runs, or kill ${running.map(({ pid }) => pid).join(' ')}`);
}

await mkdir(certDir, { recursive: true });
await mkdir(logDir, { recursive: true });
// The data of one API domain is not the other's: its groups are stored under their names.
if (backend === 'sqlite') {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const marker = join(dataDir, 'api-domain');
  if (!existsSync(marker)) await writeFile(marker, `${apiDomain}\n`);
  const written = (await readFile(marker, 'utf8')).trim();
  if (written !== apiDomain) {
    fail(`the data in ${shown(dataDir)} was written with API_DOMAIN=${written}: run with API_DOMAIN=${written}, or remove ${shown(dataDir)} to start empty`);
  }
}

// Two users in the token file: the admin (system:masters) and the controller-manager's own, which
// the bootstrap policy lets elect a leader, watch, and request its controllers' tokens.
const managerUser = `system:${apiDomain === 'k8s.io' ? 'kube' : apiDomain.split('.')[0]}-controller-manager`;
let tokenLines = existsSync(tokenFile) ? (await readFile(tokenFile, 'utf8')).trim().split('\n').filter(Boolean) : [];
if (!tokenLines.some((line) => line.split(',')[1] === 'admin')) tokenLines.unshift(`${randomBytes(24).toString('base64url')},admin,admin-uid,"system:masters"`);
if (!tokenLines.some((line) => line.split(',')[1] === managerUser)) tokenLines.push(`${randomBytes(24).toString('base64url')},${managerUser},controller-manager-uid`);
await writeFile(tokenFile, `${tokenLines.join('\n')}\n`, { mode: 0o600 });
const tokenOf = (user) => tokenLines.find((line) => line.split(',')[1] === user).split(',')[0];

if (!existsSync(signingKey)) {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await writeFile(signingKey, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(publicKey, pair.publicKey.export({ type: 'spki', format: 'pem' }));
}
// The server reuses these files: the kubeconfigs can name the CA before the server starts.
const { ca } = await ensureSelfSignedCert({ certDir, bindAddress: HOST });
await writeFile(kubeconfig, kubeconfigFor(ca, 'admin', tokenOf('admin')), { mode: 0o600 });
await writeFile(managerKubeconfig, kubeconfigFor(ca, 'controller-manager', tokenOf(managerUser)), { mode: 0o600 });

const processes = {};
let stopping = false;

/** Starts `name` in a process group of its own (Ctrl-C reaches this script only), its output in logs/<name>.log. */
async function launch(name, binary, binaryArgs) {
  const logFile = join(logDir, `${name}.log`);
  const out = openSync(logFile, 'a');
  const child = spawn(join(ROOT, 'bin', binary), binaryArgs, { stdio: ['ignore', out, out], detached: true });
  closeSync(out);
  await new Promise((done, reject) => {
    child.once('spawn', done);
    child.once('error', reject);
  });
  const entry = { name, pid: child.pid, logFile, match: `dist/bundle/${binary}.mjs`, child };
  entry.exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  processes[name] = entry;
  entry.exited.then(({ code, signal }) => {
    if (stopping) return;
    // Its last lines say why it failed; a process killed by a signal had no last words.
    process.stderr.write(`${name} exited (${signal ?? `code ${code}`}); see ${shown(logFile)}\n${signal ? '' : logTail(logFile)}`);
    void stop(1);
  });
  return entry;
}

function logTail(file, lines = 10) {
  try {
    const text = readFileSync(file, 'utf8').trimEnd();
    return text ? `${text.split('\n').slice(-lines).map((line) => `  | ${line.slice(0, 300)}`).join('\n')}\n` : '';
  } catch {
    return '';
  }
}

/** Follows a log from its current end: warnings and errors reach the terminal as one short line each. */
async function follow(entry) {
  const handle = await open(entry.logFile, 'r');
  let offset = (await handle.stat()).size;
  let partial = '';
  const levels = { 40: 'warning', 50: 'error', 60: 'fatal' };
  entry.follower = setInterval(async () => {
    const { size } = await handle.stat();
    if (size <= offset) return;
    const buffer = Buffer.alloc(size - offset);
    await handle.read(buffer, 0, buffer.length, offset);
    offset = size;
    const lines = (partial + buffer.toString('utf8')).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      let record;
      try {
        record = JSON.parse(line);
      } catch {
        if (line.trim()) process.stderr.write(`${entry.name}: ${line.slice(0, 300)}\n`);
        continue;
      }
      const level = levels[record.level];
      if (!level) continue;
      const detail = record.err?.message ?? record.reason ?? record.error ?? '';
      process.stderr.write(`${entry.name} ${level}: ${record.msg ?? ''}${detail ? `: ${String(detail).slice(0, 200)}` : ''}\n`);
    }
  }, 500);
  entry.follower.unref();
}

async function until(entry, probe) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (await probe()) return;
    if (!isAlive(entry.pid)) await new Promise(() => {}); // its exit handler reports it and stops the rest
    if (Date.now() > deadline) {
      process.stderr.write(`${entry.name} was not ready within ${START_TIMEOUT_MS / 1000} s; see ${shown(entry.logFile)}\n${logTail(entry.logFile)}`);
      await stop(1);
    }
    await sleep(100);
  }
}

/** The controller-manager first (it gives its lease up), then the apiserver; a second Ctrl-C kills both. */
async function stop(code) {
  if (stopping) {
    for (const entry of Object.values(processes)) if (isAlive(entry.pid)) process.kill(entry.pid, 'SIGKILL');
    process.exit(code || 1);
  }
  stopping = true;
  for (const name of ['controller-manager', 'apiserver']) {
    const entry = processes[name];
    if (!entry) continue;
    clearInterval(entry.follower);
    if (isAlive(entry.pid)) {
      process.kill(entry.pid, 'SIGTERM');
      await entry.exited;
    }
  }
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (!stopping) process.stderr.write('\nstopping (Ctrl-C again to kill at once)\n');
    void stop(0);
  });
}

const apiserver = await launch('apiserver', 'plat-apiserver', [
  `--storage-backend=${backend}`,
  ...(backend === 'sqlite' ? [`--storage-dir=${dataDir}`] : []),
  `--bind-address=${HOST}`,
  `--secure-port=${port}`,
  `--cert-dir=${certDir}`,
  `--token-auth-file=${tokenFile}`,
  `--api-domain=${apiDomain}`,
  `--service-account-issuer=${ISSUER}`,
  `--service-account-key-file=${publicKey}`,
  `--service-account-signing-key-file=${signingKey}`,
]);
await until(apiserver, async () => (await httpsStatus(`${server}/readyz`, ca)) === 200);
process.stdout.write(`plat-apiserver            ready at ${server} (PID ${apiserver.pid}; log ${shown(apiserver.logFile)})\n`);

const managerPort = await freePort();
const manager = await launch('controller-manager', 'plat-controller-manager', [
  `--kubeconfig=${managerKubeconfig}`,
  '--use-service-account-credentials',
  '--leader-elect',
  `--api-domain=${apiDomain}`,
  `--bind-address=${HOST}`,
  `--secure-port=${managerPort}`,
]);
await until(manager, async () => (await httpsStatus(`https://${HOST}:${managerPort}/readyz`)) === 200);
process.stdout.write(
  `plat-controller-manager   ready, leader-elected; health and metrics at https://${HOST}:${managerPort} (PID ${manager.pid}; log ${shown(manager.logFile)})\n`,
);

const state = {
  dir,
  server,
  apiDomain,
  storageBackend: backend,
  kubeconfig,
  tokenFile,
  processes: Object.fromEntries(Object.values(processes).map(({ name, pid, logFile, match }) => [name, { pid, logFile, match }])),
  controllerManager: { url: `https://${HOST}:${managerPort}` },
};
await writeFile(stateFile, `${JSON.stringify(state, null, 2)}\n`);

const inKubernetesNames = apiDomain === 'k8s.io';
const dataLine =
  backend === 'sqlite'
    ? `  data:        ${shown(dataDir)} (SQLite), kept across restarts; to start empty, stop and remove it: rm -rf ${shown(dataDir)}`
    : '  data:        in memory only (--storage-backend=memory): gone when this stops';
process.stdout.write(`
Plat is running (everything in ${shown(dir)}; logs in ${shown(logDir)}).
  server:      ${server}
  kubeconfig:  export KUBECONFIG=${kubeconfig}   (the admin, in system:masters)
${dataLine}
${
  inKubernetesNames
    ? '  API groups:  Kubernetes\' names (API_DOMAIN=k8s.io): kubectl\'s create and auth commands work as with Kubernetes.'
    : `  API groups:  ${apiDomain} names (rbac.authorization.${apiDomain}/v1, ...). kubectl's imperative commands
               (create role, create rolebinding, create token, auth can-i) name the k8s.io groups: for those, stop and start
               again with  make run API_DOMAIN=k8s.io  (and a fresh data folder, or another RUN_DIR).`
}
Try:
  kubectl --kubeconfig ${shown(kubeconfig)} get namespaces
Stop with Ctrl-C.
`);
// From here on, not before: the start-up's own warnings (readiness not yet reached) are no news.
await follow(apiserver);
await follow(manager);
