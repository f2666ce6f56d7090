// The cluster-IP allocator over IPAddress objects (upstream 1.28's ipallocator with
// MultiCIDRServiceAllocator; its ipallocator_test.go cases: sequential, requested, full, release,
// both families) and the node-port allocator, each behind the Service's allocator, with two stores
// on one memory storage racing for the last address.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { resolveResource, ResourceStore, type ResourceDefinition } from '@plat/registry';
import { createStorage, type Storage } from '@plat/storage';
import { ipAddressDefinition } from '../networking/ip-address.js';
import { ClusterIPAllocator, ERR_ALLOCATED, ERR_FULL, MANAGED_BY_LABEL } from './cluster-ip-allocator.js';
import { ipAddressObjects } from './ip-address-objects.js';
import { NodePortAllocator, parsePortRange, type PortRecord } from './node-port-allocator.js';
import { parseServiceClusterIPRanges, parseServiceCIDR } from './service-ip-range.js';
import { ServiceAllocator } from './service-allocator.js';
import { defaultService, normalizeClusterIPs, serviceDefinition, type Service } from './service.js';

const ref = { namespace: 'default', name: 'web', domain: 'k8s.io' };

function ipStore(storage: Storage): ResourceStore {
  return new ResourceStore(resolveResource(ipAddressDefinition as unknown as ResourceDefinition, 'k8s.io'), { storage, context: { domain: 'k8s.io' } });
}

function allocator(range: string, storage: Storage, random = () => 0): { alloc: ClusterIPAllocator; store: ResourceStore } {
  const store = ipStore(storage);
  return { alloc: new ClusterIPAllocator(parseServiceCIDR(range)!, ipAddressObjects(() => store), random), store };
}

const memory = (): Storage => createStorage({ backend: 'memory', compactionIntervalMs: 0 });

/** A node-port record in memory, swapped as a compare-and-swap would (one writer at a time here). */
function memoryPorts(): PortRecord {
  let used = new Set<number>();
  return { read: async () => used, update: async (change) => void (used = change(used)) };
}

describe('cluster IP allocation over IPAddress objects', () => {
  it('a /28 has no lower band: 14 addresses, network and broadcast never handed out, then range is full', async () => {
    const { alloc } = allocator('192.168.1.0/28', memory());
    const got = new Set<string>();
    for (let i = 0; i < 14; i++) got.add(await alloc.allocateNext(ref));
    assert.equal(got.size, 14);
    assert.ok(!got.has('192.168.1.0') && !got.has('192.168.1.15'));
    await assert.rejects(alloc.allocateNext(ref), { message: ERR_FULL });
  });

  it('dynamic addresses come from the upper band first (a /24 keeps 16 below for requests), then the lower one', async () => {
    const { alloc } = allocator('10.0.0.0/24', memory());
    const first = await alloc.allocateNext(ref);
    assert.equal(first, '10.0.0.17');
    for (let i = 0; i < 254 - 16 - 1; i++) await alloc.allocateNext(ref);
    const lower = await alloc.allocateNext(ref);
    assert.equal(lower, '10.0.0.1');
  });

  it('the IPAddress object is named by the address, with the Service as parentRef and upstream labels', async () => {
    const { alloc, store } = allocator('10.0.0.0/24', memory());
    assert.equal(await alloc.allocate('10.0.0.5', ref), '10.0.0.5');
    const object = (await store.get('', '10.0.0.5')) as unknown as { metadata: { labels: Record<string, string> }; spec: unknown };
    assert.deepEqual(object.spec, { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'web' } });
    assert.equal(object.metadata.labels[MANAGED_BY_LABEL], 'ipallocator.k8s.io');
    assert.equal(object.metadata.labels['ipaddress.kubernetes.io/ip-family'], 'IPv4');
    await assert.rejects(alloc.allocate('10.0.0.5', ref), { message: ERR_ALLOCATED });
    await assert.rejects(alloc.allocate('10.0.1.5', ref), { message: 'the provided IP (10.0.1.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24' });
    await alloc.release('10.0.0.5');
    assert.equal(await alloc.allocate('10.0.0.5', ref), '10.0.0.5');
  });

  it('IPv6 names are canonical', async () => {
    const { alloc } = allocator('fd00::/120', memory());
    assert.equal(await alloc.allocate('fd00:0::0:5', ref), 'fd00::5');
  });

  it('two replicas (two stores on one storage) racing for the last address: one wins, the other gets range is full', async () => {
    const storage = memory();
    const a = allocator('192.168.1.0/30', storage);
    const b = allocator('192.168.1.0/30', storage);
    await a.alloc.allocate('192.168.1.1', ref);
    const results = await Promise.allSettled([a.alloc.allocateNext(ref), b.alloc.allocateNext(ref)]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal((won[0] as PromiseFulfilledResult<string>).value, '192.168.1.2');
    assert.equal(lost.length, 1);
    assert.equal((lost[0]!.reason as Error).message, ERR_FULL);
  });
});

describe('--service-cluster-ip-range', () => {
  const cases: [string, string[]][] = [
    ['', []],
    ['10.0.0.0/24,fd00::/108', []],
    ['10.0.0.0/24,10.1.0.0/24', ['--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family']],
    ['10.0.0.0/24,fd00::/108,10.2.0.0/24', ['--service-cluster-ip-range must not contain more than two entries']],
    ['bogus', ['service-cluster-ip-range[0] is not a valid cidr']],
    ['10.0.0.0/24,bogus', ['service-cluster-ip-range[1] is not an ip net']],
    ['fd00::/48', ['shortest allowed prefix length for service CIDR is 64, got 48']],
  ];
  for (const [flag, errors] of cases) it(`${JSON.stringify(flag)}`, () => assert.deepEqual(parseServiceClusterIPRanges(flag).errors, errors));
  it('unset is upstream default 10.0.0.0/24', () => assert.equal(parseServiceClusterIPRanges('').cidrs[0]!.text, '10.0.0.0/24'));
});

describe('the Service allocator', () => {
  const setup = (ranges = '10.0.0.0/24') => {
    const storage = memory();
    const store = ipStore(storage);
    const ips = parseServiceClusterIPRanges(ranges).cidrs.map((cidr) => new ClusterIPAllocator(cidr, ipAddressObjects(() => store)));
    return { store, alloc: new ServiceAllocator(ips, new NodePortAllocator(parsePortRange('30000-32767'), memoryPorts())) };
  };
  const service = (spec: Service['spec']): Service => {
    const s: Service = { metadata: { name: 'web', namespace: 'default' }, spec };
    // As the store does before the allocator: defaults, then the strategy's preparation.
    defaultService(s);
    normalizeClusterIPs(s, undefined);
    return s;
  };
  const ctx = { domain: 'k8s.io', dryRun: false };

  it('fills clusterIP(s), ipFamilies and ipFamilyPolicy; a revert deletes the IPAddress', async () => {
    const { alloc, store } = setup();
    const s = service({ ports: [{ port: 80 }] });
    const txn = await alloc.allocate(s, undefined, ctx);
    assert.equal(s.spec!.clusterIPs!.length, 1);
    assert.equal(s.spec!.clusterIP, s.spec!.clusterIPs![0]);
    assert.deepEqual(s.spec!.ipFamilies, ['IPv4']);
    assert.equal(s.spec!.ipFamilyPolicy, 'SingleStack');
    await store.get('', s.spec!.clusterIP!);
    await txn.revert();
    await assert.rejects(store.get('', s.spec!.clusterIP!), (e: unknown) => isStatusError(e, 'NotFound'));
  });

  it('a requested address already taken: upstream 422 on spec.clusterIPs', async () => {
    const { alloc } = setup();
    await alloc.allocate(service({ ports: [{ port: 80 }], clusterIP: '10.0.0.5' }), undefined, ctx);
    await assert.rejects(alloc.allocate(service({ ports: [{ port: 80 }], clusterIP: '10.0.0.5' }), undefined, ctx), (e: unknown) => {
      assert.ok(isStatusError(e, 'Invalid'));
      assert.equal((e as Error).message, 'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: provided IP is already allocated');
      return true;
    });
  });

  it('a full range: Internal error occurred: failed to allocate a serviceIP: range is full', async () => {
    const { alloc } = setup('10.0.0.0/30');
    await alloc.allocate(service({ ports: [{ port: 80 }] }), undefined, ctx);
    await alloc.allocate(service({ ports: [{ port: 80 }] }), undefined, ctx);
    await assert.rejects(alloc.allocate(service({ ports: [{ port: 80 }] }), undefined, ctx), { message: 'Internal error occurred: failed to allocate a serviceIP: range is full' });
  });

  it('headless and ExternalName allocate nothing; dual stack gets both families with PreferDualStack', async () => {
    const { alloc } = setup('10.0.0.0/24,fd00::/120');
    const headless = service({ clusterIP: 'None', selector: { app: 'x' } });
    await alloc.allocate(headless, undefined, ctx);
    assert.deepEqual(headless.spec!.clusterIPs, ['None']);
    const external = service({ type: 'ExternalName', externalName: 'example.com' });
    await alloc.allocate(external, undefined, ctx);
    assert.equal(external.spec!.clusterIPs, undefined);
    const dual = service({ ports: [{ port: 80 }], ipFamilyPolicy: 'PreferDualStack' });
    await alloc.allocate(dual, undefined, ctx);
    assert.deepEqual(dual.spec!.ipFamilies, ['IPv4', 'IPv6']);
    assert.equal(dual.spec!.clusterIPs!.length, 2);
  });

  it('RequireDualStack on a single-stack cluster is refused with upstream message', async () => {
    const { alloc } = setup();
    await assert.rejects(alloc.allocate(service({ ports: [{ port: 80 }], ipFamilyPolicy: 'RequireDualStack' }), undefined, ctx), {
      message: 'Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    });
  });

  it('node ports: allocated for NodePort, a taken or out-of-range request refused with upstream messages', async () => {
    const { alloc } = setup();
    const first = service({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }, { port: 443, name: 'https' }] });
    await alloc.allocate(first, undefined, ctx);
    assert.ok(first.spec!.ports![1]!.nodePort! >= 30000);
    await assert.rejects(alloc.allocate(service({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), undefined, ctx), {
      message: 'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    });
    await assert.rejects(alloc.allocate(service({ type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }), undefined, ctx), {
      message: 'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    });
  });

  it('dry run reserves nothing: the network address, as upstream dry-run allocator', async () => {
    const { alloc, store } = setup();
    const s = service({ ports: [{ port: 80 }] });
    await alloc.allocate(s, undefined, { ...ctx, dryRun: true });
    assert.equal(s.spec!.clusterIP, '10.0.0.0');
    assert.equal((await store.list('', {})).items.length, 0);
  });
});

describe('Services through the store: what updates and deletes give back (upstream alloc.go update cases)', () => {
  const setUpStore = (ranges = '10.0.0.0/24') => {
    const storage = memory();
    const ips = ipStore(storage);
    const ports = memoryPorts();
    const allocator = new ServiceAllocator(
      parseServiceClusterIPRanges(ranges).cidrs.map((cidr) => new ClusterIPAllocator(cidr, ipAddressObjects(() => ips))),
      new NodePortAllocator(parsePortRange('30000-32767'), ports),
    );
    const services = new ResourceStore(resolveResource(serviceDefinition({ allocator }) as unknown as ResourceDefinition, 'k8s.io'), { storage, context: { domain: 'k8s.io' } });
    const addresses = async () => (await ips.list('', {})).items.map((i) => i.metadata.name).sort();
    return { services, addresses, ports };
  };
  const svc = (spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec }) as never;
  const get = async (services: ResourceStore) => (await services.get('default', 'web')) as unknown as Service;

  it('create stores the address the IPAddress holds; delete removes both', async () => {
    const { services, addresses } = setUpStore();
    const created = (await services.create('default', svc({ ports: [{ port: 80 }] }))) as unknown as Service;
    assert.deepEqual(await addresses(), [created.spec!.clusterIP]);
    assert.deepEqual(created.status, { loadBalancer: {} });
    await services.delete('default', 'web');
    assert.deepEqual(await addresses(), []);
  });

  it('an invalid create gives nothing back because it reserved nothing; a failed store write reverts', async () => {
    const { services, addresses } = setUpStore();
    await assert.rejects(services.create('default', svc({ ports: [{ port: 80 }, { port: 81 }] })), (e: unknown) => isStatusError(e, 'Invalid'));
    await services.create('default', svc({ ports: [{ port: 80 }] }));
    await assert.rejects(services.create('default', svc({ ports: [{ port: 80 }] })), (e: unknown) => isStatusError(e, 'AlreadyExists'));
    assert.equal((await addresses()).length, 1);
  });

  it('ClusterIP to ExternalName releases the address once stored; back to ClusterIP allocates one', async () => {
    const { services, addresses } = setUpStore();
    await services.create('default', svc({ ports: [{ port: 80 }] }));
    const current = structuredClone(await get(services));
    current.spec = { type: 'ExternalName', externalName: 'example.com', ports: current.spec!.ports! };
    const updated = (await services.update('default', 'web', current as never)).object as unknown as Service;
    assert.equal(updated.spec!.clusterIP, undefined);
    assert.deepEqual(await addresses(), []);
    const back = structuredClone(updated);
    back.spec = { type: 'ClusterIP', ports: back.spec!.ports! };
    const again = (await services.update('default', 'web', back as never)).object as unknown as Service;
    assert.deepEqual(await addresses(), [again.spec!.clusterIP]);
  });

  it('NodePort to ClusterIP gives its node port back; an update that keeps a NodePort keeps its port', async () => {
    const { services, ports } = setUpStore();
    await services.create('default', svc({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }));
    assert.ok((await ports.read()).has(30080));
    const same = structuredClone(await get(services));
    same.metadata.labels = { touched: 'yes' };
    delete same.spec!.ports![0]!.nodePort;
    const kept = (await services.update('default', 'web', same as never)).object as unknown as Service;
    assert.equal(kept.spec!.ports![0]!.nodePort, 30080);
    const toClusterIP = structuredClone(kept);
    toClusterIP.spec!.type = 'ClusterIP';
    await services.update('default', 'web', toClusterIP as never);
    assert.ok(!(await ports.read()).has(30080));
  });

  it('a dual-stack Service dropping its second family (SingleStack) releases that address', async () => {
    const { services, addresses } = setUpStore('10.0.0.0/24,fd00::/120');
    const created = (await services.create('default', svc({ ports: [{ port: 80 }], ipFamilyPolicy: 'RequireDualStack' }))) as unknown as Service;
    assert.equal((await addresses()).length, 2);
    const single = structuredClone(created);
    single.spec!.ipFamilyPolicy = 'SingleStack';
    const updated = (await services.update('default', 'web', single as never)).object as unknown as Service;
    assert.deepEqual(updated.spec!.clusterIPs, [created.spec!.clusterIPs![0]]);
    assert.deepEqual(await addresses(), [created.spec!.clusterIPs![0]]);
  });

  it('a dry-run create stores and reserves nothing', async () => {
    const { services, addresses } = setUpStore();
    const answer = (await services.create('default', svc({ ports: [{ port: 80 }] }), { dryRun: true })) as unknown as Service;
    assert.equal(answer.spec!.clusterIP, '10.0.0.0');
    assert.deepEqual(await addresses(), []);
  });
});

describe('a Service held by a finalizer', () => {
  it('keeps its address while marked; the update that takes the last finalizer away releases it', async () => {
    const storage = memory();
    const ips = ipStore(storage);
    const allocator = new ServiceAllocator(
      parseServiceClusterIPRanges('10.0.0.0/24').cidrs.map((cidr) => new ClusterIPAllocator(cidr, ipAddressObjects(() => ips))),
      new NodePortAllocator(parsePortRange('30000-32767'), memoryPorts()),
    );
    const services = new ResourceStore(resolveResource(serviceDefinition({ allocator }) as unknown as ResourceDefinition, 'k8s.io'), { storage, context: { domain: 'k8s.io' } });
    await services.create('default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: { ports: [{ port: 80 }] } } as never);
    const marked = await services.delete('default', 'held');
    assert.equal(marked.deleted, false);
    assert.equal((await ips.list('', {})).items.length, 1);
    const current = structuredClone(await services.get('default', 'held'));
    current.metadata.finalizers = [];
    await services.update('default', 'held', current);
    await assert.rejects(services.get('default', 'held'), (e: unknown) => isStatusError(e, 'NotFound'));
    assert.equal((await ips.list('', {})).items.length, 0);
  });
});
