// `make cluster`: a local cluster on loopback: etcd (three members over TLS with client certificates,
// by default), redis, three apiserver replicas sharing one CA,
// haproxy round-robin in front of them (TLS passed through, health-checked on /readyz) and two
// leader-elected controller-managers, with one kubeconfig that points at the load balancer.
// Everything is kept in one folder (--dir, default .cluster); the PIDs are in <dir>/pids, which
// scripts/cluster-down.mjs reads to stop them. Every process listens on 127.0.0.1 only.
//
//   node scripts/cluster-up.mjs [--dir=.cluster] [--api-domain=plat.io] [--replicas=3]
//                               [--controller-managers=2] [--lb-port=0 (a free port)]
//                               [--etcd-members=3] [--etcd-tls=true]
//
// With --etcd-tls (the default) the members serve clients and peers over TLS and require client
// certificates, made once by deploy/etcd-certs.sh in <dir>/etcd-certs; the replicas get
// --etcd-cafile, --etcd-certfile and --etcd-keyfile.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile, appendFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSelfSignedCert } from '@plat/serving';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, ...value] = arg.replace(/^--/, '').split('=');
    return [name, value.join('=')];
  }),
);
const dir = resolve(args.dir || '.cluster');
const apiDomain = args['api-domain'] || process.env.API_DOMAIN || 'plat.io';
const replicaCount = Number(args.replicas || 3);
const managerCount = Number(args['controller-managers'] ?? 2);
const etcdMemberCount = Number(args['etcd-members'] || 3);
const etcdTls = (args['etcd-tls'] ?? 'true') !== 'false';
const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 60_000;

const pidFile = join(dir, 'pids');
const certDir = join(dir, 'certs');
const tokenFile = join(dir, 'tokens.csv');
const kubeconfig = join(dir, 'kubeconfig');
const logDir = join(dir, 'logs');

const log = (message) => process.stderr.write(`cluster: ${message}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A free loopback port (the kernel's choice; released before use). */
function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Running: it exists and is not a zombie (an exited child not yet reaped). */
const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
};

const started = [];
/** Starts a process in its own process group, detached from this script, its output in logs/<name>.log. */
async function launch(name, command, commandArgs) {
  const out = openSync(join(logDir, `${name}.log`), 'a');
  const child = spawn(command, commandArgs, { cwd: dir, stdio: ['ignore', out, out], detached: true });
  closeSync(out);
  await new Promise((done, fail) => {
    child.once('spawn', done);
    child.once('error', fail);
  });
  child.unref();
  started.push({ name, pid: child.pid });
  // One line per process: name, PID, and what its command line contains (cluster-down checks it before signalling).
  // bin/plat-* exec node on apps/<app>/dist/bundle/plat-<name>.mjs: that is what the process's command line shows.
  const executable = command.split('/').pop();
  const match = executable.startsWith('plat-') ? `dist/bundle/${executable}.mjs` : executable;
  await appendFile(pidFile, `${name} ${child.pid} ${match}\n`);
  return child.pid;
}

/** The last lines of a process's log, for the error that says it failed. */
async function logTail(name, lines = 15) {
  const text = await readFile(join(logDir, `${name}.log`), 'utf8').catch(() => '');
  const tail = text.trimEnd().split('\n').slice(-lines).map((line) => `  | ${line.slice(0, 400)}`);
  return tail.length && text ? `; the end of ${name}.log:\n${tail.join('\n')}` : '';
}

async function until(what, pid, probe) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (!isAlive(pid)) throw new Error(`${what} exited; see ${logDir}${await logTail(what)}`);
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${START_TIMEOUT_MS} ms; see ${logDir}${await logTail(what)}`);
    await sleep(100);
  }
}

/** etcd's /health over its client URL (with the client certificate under TLS): the member has a leader. */
const etcdHealthy = (endpoint, tls) =>
  new Promise((done) => {
    const url = new URL('/health', endpoint);
    const options = { host: url.hostname, port: url.port, path: url.pathname, agent: false, timeout: 2000, ...(tls ?? {}) };
    const req = (tls ? request : httpRequest)(options, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => done(res.statusCode === 200 && body.includes('"health":"true"')));
    });
    req.on('error', () => done(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });

const httpsStatus = (port, path, ca) =>
  new Promise((done) => {
    const req = request({ host: HOST, port, path, ca, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      done(res.statusCode);
    });
    req.on('error', () => done(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });

const redisPing = (port) =>
  new Promise((done) => {
    const socket = connect(port, HOST);
    socket.setTimeout(1000, () => socket.destroy());
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      done(data.toString().startsWith('+PONG'));
      socket.destroy();
    });
    socket.on('close', () => done(false));
  });

async function main() {
  if (existsSync(pidFile)) {
    const running = (await readFile(pidFile, 'utf8')).split('\n').filter(Boolean).map((line) => Number(line.split(' ')[1])).filter(isAlive);
    if (running.length > 0) throw new Error(`a cluster is already running from ${dir} (PIDs ${running.join(' ')}); run make cluster-down first`);
  }
  await mkdir(logDir, { recursive: true });
  await mkdir(certDir, { recursive: true });
  await writeFile(pidFile, '');

  // etcd: the members, each with its own data folder, over TLS with client and peer certificates
  // unless --etcd-tls=false.
  const scheme = etcdTls ? 'https' : 'http';
  const etcdCertDir = join(dir, 'etcd-certs');
  let etcdClientTls;
  let etcdTlsFlags = [];
  if (etcdTls) {
    execFileSync('sh', [join(ROOT, 'deploy/etcd-certs.sh'), etcdCertDir], { stdio: ['ignore', 'ignore', 'inherit'] });
    const file = (name) => join(etcdCertDir, name);
    etcdClientTls = { ca: readFileSync(file('ca.crt')), cert: readFileSync(file('client.crt')), key: readFileSync(file('client.key')) };
    etcdTlsFlags = [`--etcd-cafile=${file('ca.crt')}`, `--etcd-certfile=${file('client.crt')}`, `--etcd-keyfile=${file('client.key')}`];
  }
  const members = [];
  for (let i = 1; i <= etcdMemberCount; i++) {
    const [client, peer] = [await freePort(), await freePort()];
    members.push({ name: `etcd-${i}`, endpoint: `${scheme}://${HOST}:${client}`, peer: `${scheme}://${HOST}:${peer}`, dataDir: join(dir, `etcd-${i}`) });
  }
  const initialCluster = members.map((member) => `${member.name}=${member.peer}`).join(',');
  const clusterToken = `plat-${randomBytes(4).toString('hex')}`;
  for (const member of members) {
    const file = (name) => join(etcdCertDir, name);
    member.pid = await launch(member.name, 'etcd', [
      `--name=${member.name}`,
      `--data-dir=${member.dataDir}`,
      `--listen-client-urls=${member.endpoint}`,
      `--advertise-client-urls=${member.endpoint}`,
      `--listen-peer-urls=${member.peer}`,
      `--initial-advertise-peer-urls=${member.peer}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-token=${clusterToken}`,
      // etcd 3.5's default (Debian's is 3.4): a member that returns does not depose the leader.
      '--pre-vote=true',
      // Bookmarks of a quiet resource move on with etcd's periodic progress notifications.
      '--experimental-watch-progress-notify-interval=5s',
      '--log-level=warn',
      ...(etcdTls
        ? [
            `--cert-file=${file('server.crt')}`, `--key-file=${file('server.key')}`, `--trusted-ca-file=${file('ca.crt')}`, '--client-cert-auth',
            `--peer-cert-file=${file('server.crt')}`, `--peer-key-file=${file('server.key')}`, `--peer-trusted-ca-file=${file('ca.crt')}`, '--peer-client-cert-auth',
          ]
        : []),
    ]);
  }
  for (const member of members) {
    await until(member.name, member.pid, () => etcdHealthy(member.endpoint, etcdClientTls));
    log(`${member.name} at ${member.endpoint} (data in ${member.dataDir})`);
  }
  const etcdEndpoints = members.map((member) => member.endpoint);

  // redis: in memory only.
  const redisPort = await freePort();
  await mkdir(join(dir, 'redis'), { recursive: true });
  const redisPid = await launch('redis', 'redis-server', [
    '--bind', HOST, '--port', String(redisPort), '--save', '', '--appendonly', 'no', '--dir', join(dir, 'redis'), '--daemonize', 'no',
  ]);
  await until('redis', redisPid, () => redisPing(redisPort));
  const redisUrl = `redis://${HOST}:${redisPort}`;
  log(`redis at ${redisUrl}`);

  // One admin token (system:masters), one CA and serving certificate in the shared folder: every
  // replica finds them there and serves the same certificate, so one kubeconfig trusts them all.
  // The controller-managers get a token of their own user, which the bootstrap policy lets elect a
  // leader, watch and request their controllers' service-account tokens: no system:masters.
  const prefix = apiDomain === 'k8s.io' ? 'kube' : apiDomain.split('.')[0];
  if (!existsSync(tokenFile)) {
    const admin = `${randomBytes(24).toString('base64url')},admin,admin-uid,"system:masters"`;
    const manager = `${randomBytes(24).toString('base64url')},system:${prefix}-controller-manager,controller-manager-uid`;
    await writeFile(tokenFile, `${admin}\n${manager}\n`, { mode: 0o600 });
  }
  const [token, managerToken] = (await readFile(tokenFile, 'utf8')).trim().split('\n').map((line) => line.split(',')[0]);
  // One service-account signing key for every replica: tokens one issues, all accept.
  const signingKey = join(dir, 'service-account.key');
  const publicKey = join(dir, 'service-account.pub');
  if (!existsSync(signingKey)) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await writeFile(signingKey, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    await writeFile(publicKey, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  }
  const { ca } = await ensureSelfSignedCert({ certDir, bindAddress: HOST });

  // --redis-url is passed only once the binary implements it (its --help says so until then).
  const help = await new Promise((done) => {
    let text = '';
    const child = spawn(join(ROOT, 'bin/plat-apiserver'), ['--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('close', () => done(text));
  });
  const redisLine = help.split('\n').find((line) => line.trim().startsWith('--redis-url'));
  const redisFlag = redisLine && !/not implemented/i.test(redisLine) ? [`--redis-url=${redisUrl}`] : [];

  const replicas = [];
  for (let i = 1; i <= replicaCount; i++) {
    const port = await freePort();
    const name = `apiserver-${i}`;
    // Each replica lists the members from a different one: a replica uses the first that serves.
    const servers = etcdEndpoints.map((_, j) => etcdEndpoints[(i - 1 + j) % etcdEndpoints.length]);
    const pid = await launch(name, join(ROOT, 'bin/plat-apiserver'), [
      `--etcd-servers=${servers.join(',')}`,
      ...etcdTlsFlags,
      `--bind-address=${HOST}`,
      `--secure-port=${port}`,
      `--cert-dir=${certDir}`,
      `--token-auth-file=${tokenFile}`,
      `--api-domain=${apiDomain}`,
      '--service-account-issuer=https://plat-cluster.local',
      `--service-account-key-file=${publicKey}`,
      `--service-account-signing-key-file=${signingKey}`,
      ...redisFlag,
    ]);
    replicas.push({ name, port, pid, url: `https://${HOST}:${port}` });
  }
  for (const replica of replicas) {
    await until(replica.name, replica.pid, async () => (await httpsStatus(replica.port, '/readyz', ca)) === 200);
    log(`${replica.name} at ${replica.url}`);
  }

  // haproxy: TCP passthrough of TLS, round-robin, each replica health-checked on /readyz over TLS.
  const lbPort = Number(args['lb-port']) || (await freePort());
  const template = await readFile(join(ROOT, 'deploy/haproxy.cfg.template'), 'utf8');
  const servers = replicas
    .map((replica) => `    server ${replica.name} ${HOST}:${replica.port} check check-ssl verify none inter 1s fall 2 rise 2`)
    .join('\n');
  const haproxyCfg = join(dir, 'haproxy.cfg');
  await writeFile(haproxyCfg, template.replaceAll('${BIND}', `${HOST}:${lbPort}`).replaceAll('${SERVERS}', servers));
  const haproxyPid = await launch('haproxy', 'haproxy', ['-f', haproxyCfg]);
  await until('haproxy', haproxyPid, async () => (await httpsStatus(lbPort, '/readyz', ca)) === 200);
  const server = `https://${HOST}:${lbPort}`;
  log(`haproxy at ${server}`);

  await writeFile(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- name: plat-cluster
  cluster:
    server: ${server}
    certificate-authority-data: ${Buffer.from(ca).toString('base64')}
users:
- name: admin
  user:
    token: ${token}
contexts:
- name: plat-cluster
  context:
    cluster: plat-cluster
    user: admin
current-context: plat-cluster
`,
    { mode: 0o600 },
  );

  const managerKubeconfig = join(dir, 'controller-manager.kubeconfig');
  await writeFile(
    managerKubeconfig,
    (await readFile(kubeconfig, 'utf8')).replace(`token: ${token}`, `token: ${managerToken}`).replaceAll('name: admin', 'name: controller-manager').replace('user: admin', 'user: controller-manager'),
    { mode: 0o600 },
  );
  const managers = [];
  for (let i = 1; i <= managerCount; i++) {
    const name = `controller-manager-${i}`;
    // Each its own secure port (health, metrics): they share this host, so not all the default 10257.
    const securePort = await freePort();
    const pid = await launch(name, join(ROOT, 'bin/plat-controller-manager'), [
      `--kubeconfig=${managerKubeconfig}`,
      '--use-service-account-credentials',
      '--leader-elect',
      `--api-domain=${apiDomain}`,
      `--bind-address=${HOST}`,
      `--secure-port=${securePort}`,
    ]);
    managers.push({ name, pid, url: `https://${HOST}:${securePort}` });
  }
  await sleep(500);
  for (const manager of managers) if (!isAlive(manager.pid)) throw new Error(`${manager.name} exited; see ${logDir}/${manager.name}.log`);

  const state = {
    dir,
    apiDomain,
    server,
    lbPort,
    kubeconfig,
    caFile: join(certDir, 'ca.crt'),
    tokenFile,
    token,
    etcd: {
      endpoint: etcdEndpoints[0],
      pid: members[0].pid,
      endpoints: etcdEndpoints,
      members: members.map(({ name, endpoint, pid, dataDir }) => ({ name, endpoint, pid, dataDir })),
      ...(etcdTls && { tls: { caFile: join(etcdCertDir, 'ca.crt'), certFile: join(etcdCertDir, 'client.crt'), keyFile: join(etcdCertDir, 'client.key') } }),
    },
    redis: { url: redisUrl, pid: redisPid, passedToReplicas: redisFlag.length > 0 },
    replicas,
    haproxy: { pid: haproxyPid, config: haproxyCfg },
    controllerManagers: managers,
  };
  await writeFile(join(dir, 'cluster.json'), `${JSON.stringify(state, null, 2)}\n`);
  process.stderr.write(`
A Plat cluster is running (state in ${dir}, logs in ${logDir}):
  load balancer: ${server}  (haproxy over ${replicas.length} replicas)
  etcd:          ${etcdEndpoints.join(', ')}${etcdTls ? ` (TLS; client certificate in ${etcdCertDir})` : ''}
  redis:         ${redisUrl}${redisFlag.length ? '' : ' (not passed to the replicas: --redis-url is not implemented yet)'}
  kubeconfig:    ${kubeconfig}
Try:
  kubectl --kubeconfig ${kubeconfig} get namespaces
Stop it with: make cluster-down${dir === resolve('.cluster') ? '' : ` CLUSTER_DIR=${dir}`}
`);
}

try {
  await main();
} catch (error) {
  log(`failed: ${error instanceof Error ? error.message : error}`);
  for (const { pid } of started.reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  log(`stopped what had started; the state is left in ${dir} for its logs`);
  process.exit(1);
}
