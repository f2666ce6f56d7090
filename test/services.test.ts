// Services end to end (--api-domain=k8s.io, an apiserver in this process on memory with
// --service-cluster-ip-range=10.96.0.0/28 and networking.k8s.io/v1alpha1 served): kubectl 1.28
// creates ClusterIP, NodePort, headless and ExternalName Services; `kubectl get svc` shows
// upstream's columns and cells; every cluster IP is an IPAddress object whose parentRef is its
// Service, gone when the Service is; a requested address taken is refused with upstream's message;
// the range runs full with upstream's error; services/proxy answers 501 with a Status.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseRuntimeConfig } from '@plat/apiserver';
import { startInProcessApiServer, type InProcessApiServer } from '@plat/apiserver/testing';
import { writeKubeconfig } from './support/kubeconfig.js';

const run = promisify(execFile);
const KUBECTL_128 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.28';
const KUBECTL = existsSync(KUBECTL_128) ? KUBECTL_128 : 'kubectl';

describe('Services, their cluster IPs as IPAddress objects, node ports (k8s.io, in-process)', () => {
  let server: InProcessApiServer;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  const kubectl = async (...args: string[]): Promise<string> => (await run(KUBECTL, ['--kubeconfig', kubeconfig.path, ...args])).stdout;
  const kubectlFails = async (...args: string[]): Promise<string> => {
    try {
      await kubectl(...args);
    } catch (error) {
      return (error as { stderr: string }).stderr;
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded`);
  };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await server.send(method, path, body, { Authorization: `Bearer ${server.adminToken}` });
    return { ...response, json: response.body ? (JSON.parse(response.body) as Record<string, any>) : {} };
  };

  before(async () => {
    server = await startInProcessApiServer({
      domain: 'k8s.io',
      api: { serviceClusterIPRange: '10.96.0.0/28', runtimeConfig: parseRuntimeConfig(['networking.k8s.io/v1alpha1=true']) },
    });
    kubeconfig = await writeKubeconfig(server, server.adminToken);
  });
  after(async () => {
    await server?.stop();
    await kubeconfig?.cleanup();
  });

  it('kubectl create service clusterip: a cluster IP from the range, held by an IPAddress whose parentRef is the Service', async () => {
    await kubectl('create', 'service', 'clusterip', 'my-svc', '--tcp=80:8080');
    const svc = JSON.parse(await kubectl('get', 'svc', 'my-svc', '-o', 'json'));
    const ip: string = svc.spec.clusterIP;
    assert.match(ip, /^10\.96\.0\.([1-9]|1[0-4])$/);
    assert.deepEqual(svc.spec.clusterIPs, [ip]);
    assert.deepEqual(svc.spec.ipFamilies, ['IPv4']);
    assert.equal(svc.spec.ipFamilyPolicy, 'SingleStack');
    assert.deepEqual(svc.spec.ports, [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);
    assert.equal(svc.spec.sessionAffinity, 'None');
    assert.equal(svc.spec.internalTrafficPolicy, 'Cluster');

    const table = await kubectl('get', 'svc', 'my-svc');
    const [header, row] = table.trim().split('\n');
    assert.match(header!, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/);
    assert.match(row!, new RegExp(`^my-svc\\s+ClusterIP\\s+${ip.replace(/\./g, '\\.')}\\s+<none>\\s+80/TCP\\s+\\S+$`));
    const wide = await kubectl('get', 'svc', 'my-svc', '-o', 'wide');
    assert.match(wide.split('\n')[0]!, /AGE\s+SELECTOR$/);
    assert.match(wide.split('\n')[1]!, /app=my-svc$/);

    const addresses = await kubectl('get', 'ipaddresses');
    assert.match(addresses, new RegExp(`${ip.replace(/\./g, '\\.')}\\s+services/default/my-svc`));
    const address = JSON.parse(await kubectl('get', 'ipaddress', ip, '-o', 'json'));
    assert.deepEqual(address.spec.parentRef, { group: '', resource: 'services', namespace: 'default', name: 'my-svc' });
    assert.equal(address.metadata.labels['ipaddress.kubernetes.io/managed-by'], 'ipallocator.k8s.io');

    await kubectl('delete', 'svc', 'my-svc');
    const gone = await kubectlFails('get', 'ipaddress', ip);
    assert.match(gone, /NotFound|not found/);
  });

  it('a requested cluster IP already held is refused with upstream message, and nothing is stored', async () => {
    const body = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { clusterIP: '10.96.0.5', ports: [{ port: 80 }] } });
    assert.equal((await call('POST', '/api/v1/namespaces/default/services', body('first'))).status, 201);
    const taken = await call('POST', '/api/v1/namespaces/default/services', body('second'));
    assert.equal(taken.status, 422);
    assert.equal(taken.json.message, 'Service "second" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.5"}: failed to allocate IP 10.96.0.5: provided IP is already allocated');
    assert.equal((await call('GET', '/api/v1/namespaces/default/services/second')).status, 404);
    await call('DELETE', '/api/v1/namespaces/default/services/first');
  });

  it('an invalid Service after allocation gives its address back (the write fails, the IPAddress goes)', async () => {
    const before = (await call('GET', '/apis/networking.k8s.io/v1alpha1/ipaddresses')).json.items.length;
    const bad = await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'bad' }, spec: { ports: [{ port: 80 }, { port: 81 }] } });
    assert.equal(bad.status, 422);
    assert.match(bad.json.message, /spec\.ports\[0\]\.name: Required value/);
    assert.equal((await call('GET', '/apis/networking.k8s.io/v1alpha1/ipaddresses')).json.items.length, before);
  });

  it('kubectl create service nodeport: a node port in 30000-32767, shown as 80:<port>/TCP; a taken node port refused', async () => {
    await kubectl('create', 'service', 'nodeport', 'np', '--tcp=80:8080', '--node-port=30080');
    const svc = JSON.parse(await kubectl('get', 'svc', 'np', '-o', 'json'));
    assert.equal(svc.spec.ports[0].nodePort, 30080);
    assert.equal(svc.spec.externalTrafficPolicy, 'Cluster');
    assert.match((await kubectl('get', 'svc', 'np')).split('\n')[1]!, /np\s+NodePort\s+10\.96\.0\.\d+\s+<none>\s+80:30080\/TCP/);
    const again = await kubectlFails('create', 'service', 'nodeport', 'np2', '--tcp=80:8080', '--node-port=30080');
    assert.match(again, /spec\.ports\[0\]\.nodePort: Invalid value: 30080: provided port is already allocated/);
    const out = await kubectlFails('create', 'service', 'nodeport', 'np3', '--tcp=80:8080', '--node-port=80');
    assert.match(out, /provided port is not in the valid range\. The range of valid ports is 30000-32767/);
    await kubectl('delete', 'svc', 'np');
    // Released: the port can be had again.
    await kubectl('create', 'service', 'nodeport', 'np', '--tcp=80:8080', '--node-port=30080');
    await kubectl('delete', 'svc', 'np');
  });

  it('headless and ExternalName Services hold no address', async () => {
    const before = (await call('GET', '/apis/networking.k8s.io/v1alpha1/ipaddresses')).json.items.length;
    await kubectl('create', 'service', 'clusterip', 'headless', '--clusterip=None');
    await kubectl('create', 'service', 'externalname', 'ext', '--external-name=example.com');
    const rows = (await kubectl('get', 'svc', 'headless', 'ext')).trim().split('\n');
    assert.match(rows[1]!, /^headless\s+ClusterIP\s+None\s+<none>\s+<none>/);
    assert.match(rows[2]!, /^ext\s+ExternalName\s+<none>\s+example\.com\s+<none>/);
    assert.equal((await call('GET', '/apis/networking.k8s.io/v1alpha1/ipaddresses')).json.items.length, before);
    await kubectl('delete', 'svc', 'headless', 'ext');
  });

  it('a full range: Internal error occurred: failed to allocate a serviceIP: range is full', async () => {
    const made: string[] = [];
    for (let i = 0; ; i++) {
      const response = await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: `fill-${i}` }, spec: { ports: [{ port: 80 }] } });
      if (response.status !== 201) {
        assert.equal(response.status, 500);
        assert.equal(response.json.message, 'Internal error occurred: failed to allocate a serviceIP: range is full');
        break;
      }
      made.push(`fill-${i}`);
      assert.ok(i < 20, 'a /28 holds 14 addresses');
    }
    assert.equal(made.length, 14);
    for (const name of made) await call('DELETE', `/api/v1/namespaces/default/services/${name}`);
    assert.equal((await call('GET', '/apis/networking.k8s.io/v1alpha1/ipaddresses')).json.items.length, 0);
  });

  it('services/proxy answers 501 with a Status saying it is not supported here; discovery lists it', async () => {
    await kubectl('create', 'service', 'clusterip', 'px', '--tcp=80:8080');
    const proxied = await call('GET', '/api/v1/namespaces/default/services/px/proxy/healthz');
    assert.equal(proxied.status, 501);
    assert.equal(proxied.json.kind, 'Status');
    assert.equal(proxied.json.message, 'services/proxy is not supported by this server: this control plane has no network path to Service backends');
    const discovery = await call('GET', '/api/v1');
    const entry = discovery.json.resources.find((r: { name: string }) => r.name === 'services/proxy');
    assert.deepEqual(entry, { name: 'services/proxy', singularName: '', namespaced: true, kind: 'ServiceProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
    await kubectl('delete', 'svc', 'px');
  });

  it('kubectl apply (client- and server-side) keeps the allocated address across applies; patch to NodePort allocates a port; --dry-run=server reserves nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-services-'));
    try {
      const manifest = join(dir, 'svc.yaml');
      await writeFile(manifest, 'apiVersion: v1\nkind: Service\nmetadata:\n  name: applied\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n    targetPort: http\n');
      await kubectl('apply', '-f', manifest);
      const first = JSON.parse(await kubectl('get', 'svc', 'applied', '-o', 'json'));
      await writeFile(manifest, 'apiVersion: v1\nkind: Service\nmetadata:\n  name: applied\n  labels:\n    tier: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n    targetPort: http\n');
      await kubectl('apply', '-f', manifest);
      await kubectl('apply', '--server-side', '--force-conflicts', '-f', manifest);
      const again = JSON.parse(await kubectl('get', 'svc', 'applied', '-o', 'json'));
      assert.equal(again.spec.clusterIP, first.spec.clusterIP);
      assert.equal(again.metadata.labels.tier, 'web');
      assert.equal((await call('GET', '/apis/networking.k8s.io/v1alpha1/ipaddresses')).json.items.length, 1);

      await kubectl('patch', 'svc', 'applied', '--type=merge', '-p', '{"spec":{"type":"NodePort"}}');
      const nodePort = JSON.parse(await kubectl('get', 'svc', 'applied', '-o', 'json')).spec.ports[0].nodePort;
      assert.ok(nodePort >= 30000 && nodePort <= 32767, String(nodePort));

      const dry = await kubectl('create', 'service', 'clusterip', 'dry', '--tcp=80:8080', '--dry-run=server', '-o', 'json');
      assert.equal(JSON.parse(dry).spec.clusterIP, '10.96.0.0', "upstream's dry-run allocator answers the range's network address");
      assert.equal((await call('GET', '/apis/networking.k8s.io/v1alpha1/ipaddresses')).json.items.length, 1);
      await kubectl('delete', 'svc', 'applied');
      assert.equal((await call('GET', '/apis/networking.k8s.io/v1alpha1/ipaddresses')).json.items.length, 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('Services with the defaults (plat.io, networking/v1alpha1 not served, no range flags)', () => {
  let server: InProcessApiServer;
  before(async () => {
    server = await startInProcessApiServer();
  });
  after(async () => {
    await server?.stop();
  });

  it("a cluster IP from upstream's default range 10.0.0.0/24, kept as an IPAddress though the IPAddress API is not served", async () => {
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await server.send(method, path, body, { Authorization: `Bearer ${server.adminToken}` });
      return { ...response, json: response.body ? (JSON.parse(response.body) as Record<string, any>) : {} };
    };
    assert.equal((await call('GET', '/apis/networking.plat.io/v1alpha1/ipaddresses')).status, 404);
    const first = await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a' }, spec: { clusterIP: '10.0.0.7', ports: [{ port: 80 }] } });
    assert.equal(first.status, 201, first.body);
    const second = await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'b' }, spec: { clusterIP: '10.0.0.7', ports: [{ port: 80 }] } });
    assert.equal(second.status, 422);
    assert.match(second.json.message, /failed to allocate IP 10\.0\.0\.7: provided IP is already allocated/);
    const dynamic = await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'c' }, spec: { ports: [{ port: 80 }] } });
    assert.match(dynamic.json.spec.clusterIP, /^10\.0\.0\.(1[7-9]|[2-9]\d|1\d\d|2[0-4]\d|25[0-4])$/, 'from the upper band');
  });
});
