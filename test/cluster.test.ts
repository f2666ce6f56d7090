// End to end over `make cluster`'s topology (scripts/cluster-up.mjs into a temporary folder): etcd,
// redis, three replicas behind haproxy, two leader-elected controller-managers. A write through one
// replica is seen in order by watches on the others; a watcher that stops reading does not delay
// another; a replica killed under load through the load balancer loses no acknowledged write, and
// the clients carry on.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Agent, get, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { freePort } from '@plat/storage/testing';
import { startCluster, type Cluster } from './support/cluster.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const LEASES = (namespace: string) => `/apis/coordination.plat.io/v1/namespaces/${namespace}/leases`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('make cluster: three replicas behind haproxy', { timeout: 420_000 }, () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('serves through the load balancer, every replica is ready, and one controller-manager leads', async () => {
    const { state } = cluster;
    assert.equal(state.replicas.length, 3);
    assert.equal((await cluster.request(state.lbPort, '/readyz')).status, 200);
    for (const replica of state.replicas) assert.equal((await cluster.request(replica.port, '/readyz')).status, 200, replica.name);
    const created = await cluster.request(state.lbPort, '/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'lb-smoke' } } });
    assert.equal(created.status, 201, created.body);
    // The controller-managers reach the API through the load balancer too: the leader Lease, and
    // the default ServiceAccount of the new namespace.
    await eventually('the leader lease', async () => {
      const lease = await cluster.request(state.lbPort, `${LEASES('plat-system')}/plat-controller-manager`);
      return lease.status === 200 && Boolean(lease.json().spec?.holderIdentity);
    });
    await eventually('the default ServiceAccount', async () => (await cluster.request(state.lbPort, '/api/v1/namespaces/lb-smoke/serviceaccounts/default')).status === 200);
    // They run with --use-service-account-credentials as their own user, not system:masters: the
    // default ServiceAccount above came from the service-account-controller's account, and every
    // controller has its account in plat-system.
    const accounts = (await cluster.request(state.lbPort, '/api/v1/namespaces/plat-system/serviceaccounts')).json().items.map((a: { metadata: { name: string } }) => a.metadata.name);
    for (const name of ['clusterrole-aggregation-controller', 'generic-garbage-collector', 'namespace-controller', 'service-account-controller']) {
      assert.ok(accounts.includes(name), `${name} in ${accounts}`);
    }
    const logs = await Promise.all(state.controllerManagers.map((manager) => cluster.logs(manager.name)));
    assert.ok(logs.some((log) => log.includes('"msg":"started leading"')), 'a controller-manager leads');
    // Its controllers running, the leader has printed no process warning (such as
    // MaxListenersExceededWarning: every controller and informer waits on its one signal).
    for (const log of logs) assert.doesNotMatch(log, /^\(node:\d+\) \w*Warning/m);
    // Each controller-manager serves /healthz on a port of its own (its certificate is self-signed in
    // memory: there is no CA file to check it against).
    for (const manager of state.controllerManagers) {
      const status = await new Promise<number>((resolve, reject) =>
        get(`${manager.url}/healthz`, { rejectUnauthorized: false }, (res) => resolve(res.resume().statusCode ?? 0)).on('error', reject),
      );
      assert.equal(status, 200, manager.name);
    }
  });

  it("the compose file's health check (deploy/readyz.cjs) passes on a ready replica and fails where none serves", async () => {
    const readyz = (port: number) => spawnSync(process.execPath, [join(ROOT, 'deploy/readyz.cjs'), String(port)], { timeout: 10_000 }).status;
    for (const replica of cluster.state.replicas) assert.equal(readyz(replica.port), 0, replica.name);
    assert.equal(readyz(await freePort()), 1);
  });

  it('a write through one replica is seen, in order, by watches on the other two', async () => {
    const [first, second, third] = cluster.state.replicas as [(typeof cluster.state.replicas)[0], (typeof cluster.state.replicas)[0], (typeof cluster.state.replicas)[0]];
    const ns = 'ordered';
    assert.equal((await cluster.request(first.port, '/api/v1/namespaces', { method: 'POST', body: { metadata: { name: ns } } })).status, 201);
    const list = await cluster.request(second.port, LEASES(ns));
    assert.equal(list.status, 200, list.body);
    const from = list.json().metadata.resourceVersion as string;
    const watches = [await cluster.watch(second.port, `${LEASES(ns)}?watch=1&resourceVersion=${from}`), await cluster.watch(third.port, `${LEASES(ns)}?watch=1&resourceVersion=${from}`)];
    try {
      for (const watch of watches) assert.equal(watch.status, 200);
      // Creates, updates and deletes through the first replica; each acknowledged write's type, name
      // and resourceVersion is what the watches must deliver, in the same order.
      const expected: Array<[string, string, string]> = [];
      for (let i = 0; i < 20; i++) {
        const response = await cluster.request(first.port, LEASES(ns), { method: 'POST', body: { metadata: { name: `l-${i}` }, spec: { holderIdentity: `h-${i}` } } });
        assert.equal(response.status, 201, response.body);
        expected.push(['ADDED', `l-${i}`, response.json().metadata.resourceVersion]);
      }
      for (let i = 0; i < 20; i += 3) {
        const current = (await cluster.request(first.port, `${LEASES(ns)}/l-${i}`)).json();
        current.spec.holderIdentity = `moved-${i}`;
        const response = await cluster.request(first.port, `${LEASES(ns)}/l-${i}`, { method: 'PUT', body: current });
        assert.equal(response.status, 200, response.body);
        expected.push(['MODIFIED', `l-${i}`, response.json().metadata.resourceVersion]);
      }
      for (let i = 1; i < 20; i += 4) {
        const response = await cluster.request(first.port, `${LEASES(ns)}/l-${i}`, { method: 'DELETE' });
        assert.equal(response.status, 200, response.body);
        // The DELETED event carries the object at its deletion revision: compared by name and order.
        expected.push(['DELETED', `l-${i}`, '']);
      }
      for (const [index, watch] of watches.entries()) {
        const seen: Array<[string, string, string]> = [];
        while (seen.length < expected.length) {
          const event = await watch.next(15_000);
          assert.ok(event, `watch on replica ${index + 2} ended after ${seen.length} events`);
          if (event.type === 'BOOKMARK') continue;
          seen.push([event.type, event.object.metadata.name, event.type === 'DELETED' ? '' : event.object.metadata.resourceVersion]);
        }
        assert.deepEqual(seen, expected, `the watch on replica ${index + 2} saw the writes in order`);
      }
    } finally {
      for (const watch of watches) watch.close();
    }
  });

  it('a watcher that stops reading does not delay another watcher of the same replica, and loses nothing', async () => {
    const [watched, , writer] = cluster.state.replicas as [(typeof cluster.state.replicas)[0], unknown, (typeof cluster.state.replicas)[0]];
    const ns = 'slow';
    const accounts = `/api/v1/namespaces/${ns}/serviceaccounts`;
    assert.equal((await cluster.request(writer.port, '/api/v1/namespaces', { method: 'POST', body: { metadata: { name: ns } } })).status, 201);
    const from = (await cluster.request(watched.port, accounts)).json().metadata.resourceVersion as string;
    // 30 objects of 200 KB: 6 MB of events, more than the slow connection's socket buffers hold
    // (seen with ss: 128 KB received, as it is not read, and 4 MB sent), so the replica's writes to
    // it back up and the rest (about 2 MB) waits in the replica: within the 4 MiB a watcher may
    // fall behind before it is closed (apiserver verbs/watch-backlog.ts).
    const COUNT = 30;
    const padding = 'x'.repeat(200_000);
    const path = `${accounts}?watch=1&resourceVersion=${from}`;

    // The slow watcher: its response is paused from the first byte, so nothing more is read.
    const slow = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: watched.port, path, ca: cluster.ca, agent: false, headers: { authorization: `Bearer ${cluster.state.token}` } }, (res) => {
        res.pause();
        resolve(res);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(slow.statusCode, 200);
    const fast = await cluster.watch(watched.port, path);
    try {
      assert.equal(fast.status, 200);
      const arrived = new Map<string, number>();
      const reading = (async () => {
        while (arrived.size < COUNT) {
          const event = await fast.next(30_000);
          assert.ok(event, `the fast watch ended after ${arrived.size} events`);
          // The controller-manager adds the namespace's default ServiceAccount meanwhile.
          if (event.type === 'ADDED' && (event.object.metadata.name as string).startsWith('slow-')) arrived.set(event.object.metadata.name as string, Date.now());
        }
      })();
      const acknowledged = new Map<string, number>();
      for (let i = 0; i < COUNT; i++) {
        const name = `slow-${String(i).padStart(3, '0')}`;
        const response = await cluster.request(writer.port, accounts, { method: 'POST', body: { metadata: { name, annotations: { padding } } } });
        assert.equal(response.status, 201, response.body.slice(0, 300));
        acknowledged.set(name, Date.now());
      }
      await reading;
      const delays = [...acknowledged].map(([name, at]) => arrived.get(name)! - at);
      // Generous for a loaded CI machine; a fast watcher held back by the slow one would wait
      // for it for ever (its events are never read until the end of the test).
      assert.ok(Math.max(...delays) < 5_000, `the fast watcher waited up to ${Math.max(...delays)} ms for an event`);

      // Now read the slow watcher: everything, in order (it stayed within its backlog's bound).
      const names: string[] = [];
      let pending = '';
      await new Promise<void>((resolve, reject) => {
        slow.setEncoding('utf8');
        slow.on('data', (chunk: string) => {
          const lines = (pending + chunk).split('\n');
          pending = lines.pop()!;
          for (const line of lines) {
            if (!line.trim()) continue;
            const event = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
            if (event.type === 'ADDED' && event.object.metadata.name.startsWith('slow-')) names.push(event.object.metadata.name);
          }
          if (names.length >= COUNT) resolve();
        });
        slow.on('error', reject);
        slow.on('end', () => reject(new Error(`the slow watch ended after ${names.length} events`)));
        slow.resume();
      });
      assert.deepEqual(names, [...acknowledged.keys()]);
    } finally {
      fast.close();
      slow.destroy();
    }
  });

  it('a replica killed (SIGKILL) under load loses no acknowledged write, and clients through the load balancer carry on', async (t) => {
    const { state } = cluster;
    const lb = state.lbPort;
    const ns = 'load';
    assert.equal((await cluster.request(lb, '/api/v1/namespaces', { method: 'POST', body: { metadata: { name: ns } } })).status, 201);

    const WORKERS = 8;
    const MAX_PER_WORKER = 1_500; // bounded in count ...
    const LOAD_MS = 12_000; // ... and in time, and paced over that time: on a fast machine the
    // count alone ran out before the dead replica had left the rotation, leaving nothing to check.
    const KILL_AT_MS = 3_000;
    // The dead replica is out of rotation after two failed checks a second apart; a loaded machine
    // (several test files at once) gets some slack.
    const SETTLE_MS = 5_000;
    const victim = state.replicas[1]!;
    const acknowledged = new Map<string, string>(); // name -> uid, for every 201
    const failures: Array<{ at: number; error: string }> = [];
    const successesAt: number[] = [];
    const started = Date.now();
    let killedAt = 0;

    const killer = (async () => {
      await sleep(KILL_AT_MS);
      process.kill(victim.pid, 'SIGKILL');
      killedAt = Date.now() - started;
    })();
    const worker = async (id: number): Promise<void> => {
      // Keep-alive connections, as client libraries have: some of them are to the replica that dies.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = 0; i < MAX_PER_WORKER && Date.now() - started < LOAD_MS; i++) {
          const name = `w${id}-${i}`;
          const due = started + (i * LOAD_MS) / MAX_PER_WORKER;
          if (Date.now() < due) await sleep(due - Date.now());
          try {
            const response = await cluster.request(lb, LEASES(ns), { method: 'POST', body: { metadata: { name }, spec: { holderIdentity: name } }, agent, timeoutMs: 8_000 });
            if (response.status === 201) {
              acknowledged.set(name, response.json().metadata.uid);
              successesAt.push(Date.now() - started);
            } else {
              failures.push({ at: Date.now() - started, error: `${response.status} ${response.body.slice(0, 200)}` });
            }
          } catch (error) {
            failures.push({ at: Date.now() - started, error: String(error) });
          }
        }
      } finally {
        agent.destroy();
      }
    };
    await Promise.all([killer, ...Array.from({ length: WORKERS }, (_, id) => worker(id))]);

    t.diagnostic(`killed ${victim.name} at ${killedAt} ms; ${acknowledged.size} writes acknowledged, ${failures.length} failed: ${JSON.stringify(failures)}`);
    assert.ok(killedAt > 0, 'the replica was killed during the load');
    assert.ok(successesAt.some((at) => at < killedAt), 'writes succeeded before the kill');
    // Clients carry on: writes are acknowledged after the kill, and once the dead replica is out of
    // rotation none fails. Failures at the kill are the requests then in flight to the dead replica
    // (never acknowledged); each worker has at most one in flight.
    const lateSuccesses = successesAt.filter((at) => at > killedAt + SETTLE_MS).length;
    assert.ok(lateSuccesses >= WORKERS, `only ${lateSuccesses} writes succeeded after the kill; failures: ${JSON.stringify(failures)}`);
    const late = failures.filter((failure) => failure.at > killedAt + SETTLE_MS);
    assert.deepEqual(late, [], 'no request fails once the dead replica is out of rotation');
    assert.ok(failures.length <= WORKERS * 2, `too many failures around the kill: ${JSON.stringify(failures)}`);

    // No acknowledged write is lost: every 201 is there, with the same uid, through the load
    // balancer and through each surviving replica.
    const survivors = state.replicas.filter((replica) => replica !== victim).map((replica) => replica.port);
    for (const port of [lb, ...survivors]) {
      const list = await cluster.request(port, LEASES(ns), { timeoutMs: 30_000 });
      assert.equal(list.status, 200, list.body);
      const stored = new Map<string, string>(list.json().items.map((item: { metadata: { name: string; uid: string } }) => [item.metadata.name, item.metadata.uid]));
      const lost = [...acknowledged].filter(([name, uid]) => stored.get(name) !== uid).map(([name]) => name);
      assert.deepEqual(lost, [], `acknowledged writes missing through port ${port}`);
    }
    assert.ok(acknowledged.size > 50, `only ${acknowledged.size} writes were acknowledged`);

    // And later clients, on new connections, are served by the survivors.
    for (let i = 0; i < 12; i++) {
      const response = await cluster.request(lb, `${LEASES(ns)}/${[...acknowledged.keys()][i]}`);
      assert.equal(response.status, 200, response.body);
    }
  });
});

/** The fields of a docker-compose.yml service these tests read. */
interface ComposeService {
  build?: { dockerfile: string };
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test: string[] };
}

describe('docker-compose.yml and deploy/', () => {
  // Its anchors merged (<<:), as docker compose reads it.
  const services = (parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> }).services;

  it('has the make cluster topology: three etcd members over TLS, redis, three replicas, haproxy, two controller-managers', () => {
    assert.deepEqual(Object.keys(services).sort(), [
      'apiserver-1', 'apiserver-2', 'apiserver-3', 'certs', 'controller-manager-1', 'controller-manager-2', 'etcd-1', 'etcd-2', 'etcd-3', 'haproxy', 'redis',
    ]);
    for (const name of ['apiserver-1', 'haproxy', 'controller-manager-2']) assert.equal(services[name]!.build?.dockerfile, 'deploy/Dockerfile', name);
    const command = services['apiserver-2']!.command!;
    assert.ok(command.includes('--etcd-servers=https://etcd-1:2379,https://etcd-2:2379,https://etcd-3:2379'), command.join(' '));
    for (const flag of ['--etcd-cafile=', '--etcd-certfile=', '--etcd-keyfile=']) assert.ok(command.some((arg) => arg.startsWith(flag)), flag);
    for (const name of ['etcd-1', 'etcd-2', 'etcd-3']) {
      const member = services[name]!;
      const args = [...(member.entrypoint ?? []), ...(member.command ?? [])];
      for (const flag of [`--name=${name}`, '--client-cert-auth', '--peer-client-cert-auth', `--advertise-client-urls=https://${name}:2379`]) assert.ok(args.includes(flag), `${name}: ${flag}`);
      assert.ok(args.some((arg) => arg.startsWith('--initial-cluster=etcd-1=https://etcd-1:2380,etcd-2=https://etcd-2:2380,etcd-3=https://etcd-3:2380')), name);
    }
  });

  it('the controller-managers use their own kubeconfig and service-account credentials; the apiservers issue the tokens', (t) => {
    for (const name of ['controller-manager-1', 'controller-manager-2']) {
      const service = services[name]!;
      assert.ok(service.command!.includes('--use-service-account-credentials'), name);
      assert.ok(service.command!.includes('--kubeconfig=/controller-manager/controller-manager.kubeconfig'), name);
      // Not the certs volume: the admin's token and kubeconfigs are there.
      assert.deepEqual(service.volumes, ['controller-manager-credentials:/controller-manager:ro'], name);
    }
    for (const name of ['apiserver-1', 'apiserver-2', 'apiserver-3']) {
      const command = services[name]!.command!;
      for (const flag of ['--service-account-issuer=', '--service-account-key-file=/certs/', '--service-account-signing-key-file=/certs/']) {
        assert.ok(command.some((arg) => arg.startsWith(flag)), `${name}: ${flag}`);
      }
    }
    const certs = services.certs!;
    assert.equal(certs.environment!.CERT_DIR, '/certs');
    assert.equal(certs.environment!.CONTROLLER_MANAGER_DIR, '/controller-manager');
    assert.equal(certs.environment!.API_DOMAIN, '${API_DOMAIN:-plat.io}');

    // deploy/init-certs.sh makes every file these flags name: run it (openssl and sh) into a temporary folder.
    if (spawnSync('openssl', ['version']).error) return t.skip('openssl is not installed');
    const dir = mkdtempSync(join(tmpdir(), 'plat-init-certs-'));
    try {
      const init = (adminToken: string, apiDomain?: string) =>
        execFileSync('sh', [join(ROOT, 'deploy/init-certs.sh')], {
          env: {
            PATH: process.env.PATH,
            PLAT_ADMIN_TOKEN: adminToken,
            CERT_DIR: join(dir, 'certs'),
            CONTROLLER_MANAGER_DIR: join(dir, 'controller-manager'),
            ETCD_CERT_DIR: join(dir, 'etcd-certs'),
            ...(apiDomain && { API_DOMAIN: apiDomain }),
          },
          stdio: 'pipe',
        });
      init('admin-token-1');
      const volumeFile = (path: string) => join(dir, path.replace(/^\/(certs|controller-manager|etcd-certs)\//, '$1/'));
      for (const service of Object.values(services)) {
        for (const arg of [...(service.entrypoint ?? []), ...(service.command ?? []), ...(service.healthcheck?.test ?? [])]) {
          const path = /^--[a-z-]+=(\/(?:certs|controller-manager|etcd-certs)\/.+)$/.exec(arg)?.[1];
          if (path) assert.ok(existsSync(volumeFile(path)), `${arg}: init-certs.sh did not make it`);
        }
      }
      // The apiservers' etcd client certificate is signed by the CA the members trust.
      const etcdCa = new X509Certificate(readFileSync(join(dir, 'etcd-certs/ca.crt')));
      assert.ok(new X509Certificate(readFileSync(join(dir, 'certs/etcd-client/client.crt'))).verify(etcdCa.publicKey));
      assert.ok(new X509Certificate(readFileSync(join(dir, 'etcd-certs/server.crt'))).checkHost('etcd-2'));
      const read = (path: string) => readFileSync(join(dir, path), 'utf8');
      const managerToken = read('controller-manager/controller-manager-token').trim();
      assert.equal(read('certs/tokens.csv'), `admin-token-1,admin,admin-uid,"system:masters"\n${managerToken},system:plat-controller-manager,controller-manager-uid\n`);
      assert.match(read('controller-manager/controller-manager.kubeconfig'), new RegExp(`token: ${managerToken}\n`));
      assert.doesNotMatch(read('controller-manager/controller-manager.kubeconfig'), /admin-token-1/);
      for (const file of ['certs/kubeconfig', 'certs/kubeconfig-host']) {
        assert.match(read(file), /token: admin-token-1\n/, file);
        assert.doesNotMatch(read(file), new RegExp(managerToken), file);
      }
      assert.equal(readdirSync(join(dir, 'controller-manager')).sort().join(' '), 'controller-manager-token controller-manager.kubeconfig');
      // One EC P-256 signing key with its public half.
      const privateKey = createPrivateKey(read('certs/service-account.key'));
      assert.equal(privateKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
      assert.equal(
        createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }),
        createPublicKey(read('certs/service-account.pub')).export({ type: 'spki', format: 'pem' }),
      );

      // Again, under k8s.io: the same controller-manager token and signing key, the user renamed.
      const signingKey = read('certs/service-account.key');
      init('admin-token-2', 'k8s.io');
      assert.equal(read('controller-manager/controller-manager-token').trim(), managerToken);
      assert.equal(read('certs/service-account.key'), signingKey);
      assert.equal(read('certs/tokens.csv'), `admin-token-2,admin,admin-uid,"system:masters"\n${managerToken},system:kube-controller-manager,controller-manager-uid\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the apiservers' health check is plat-readyz, which the image installs from deploy/readyz.cjs", () => {
    for (const name of ['apiserver-1', 'apiserver-2', 'apiserver-3']) assert.deepEqual(services[name]!.healthcheck?.test, ['CMD', 'plat-readyz', '6443'], name);
    const dockerfile = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8');
    assert.match(dockerfile, /^COPY deploy\/readyz\.cjs \/usr\/local\/bin\/plat-readyz$/m);
    assert.match(dockerfile, /chmod 0755 .*\/usr\/local\/bin\/plat-readyz\b/);
  });

  it("the haproxy image's entrypoint renders a configuration haproxy accepts, its replicas re-resolved through resolv.conf", () => {
    const dir = mkdtempSync(join(tmpdir(), 'plat-haproxy-'));
    try {
      const config = join(dir, 'haproxy.cfg');
      const env = { ...process.env, HAPROXY_TEMPLATE: join(ROOT, 'deploy/haproxy.cfg.template'), HAPROXY_CONFIG: config };
      const checked = spawnSync('sh', [join(ROOT, 'deploy/haproxy-entrypoint.sh'), '--check'], { env, encoding: 'utf8', timeout: 10_000 });
      assert.equal(checked.status, 0, checked.stderr);
      const rendered = readFileSync(config, 'utf8');
      // Docker's 127.0.0.11 exists only under Docker: the container's own nameservers work anywhere.
      assert.equal(rendered.match(/^ {4}server apiserver-[123] apiserver-[123]:6443 .* resolvers resolvconf /gm)?.length, 3, rendered);
      assert.match(rendered, /^resolvers resolvconf\n {4}parse-resolv-conf$/m);
      // haproxy's default (30 s of DNS timeouts, then maintenance) took every replica out under podman.
      assert.match(rendered, /^ {4}hold timeout 1h$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the haproxy template passes TLS through, round-robin, health-checked on /readyz', () => {
    const template = readFileSync(join(ROOT, 'deploy/haproxy.cfg.template'), 'utf8');
    for (const line of ['mode tcp', 'balance roundrobin', 'option httpchk', 'uri /readyz', '${BIND}', '${SERVERS}']) assert.ok(template.includes(line), line);
  });
});
