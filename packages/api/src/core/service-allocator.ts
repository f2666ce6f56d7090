// A Service's cluster IPs and node ports, as upstream 1.28's service REST storage allocates them
// (pkg/registry/core/service/storage/alloc.go): the IP families settled against the cluster's ranges
// (initIPFamilyFields, with its messages), then the addresses and ports reserved; on create a failure
// later gives them back, on update what the new object no longer holds is given back only once it
// is stored, and a deleted Service gives back everything.
import { GoFormatted, invalid, newInternalError, newInvalid, newPath, type FieldError } from '@plat/apimachinery';
import { noAllocation, type Allocation, type AllocationContext, type ResourceAllocator } from '@plat/registry';
import { AllocationError, type ClusterIPAllocator } from './cluster-ip-allocator.js';
import { PortAllocationError, type NodePortAllocator } from './node-port-allocator.js';
import { CLUSTER_IP_NONE, familyOf, goStrings, needsClusterIP, needsHealthCheck, needsNodePort, shouldAllocateNodePorts, type Service } from './service-types.js';
import { validateClusterIPsRelatedFields } from './service-validation.js';

const SERVICE = { group: '', kind: 'Service' };
const spec = newPath('spec');

const refused = (service: Service, errors: FieldError[]): Error => newInvalid(SERVICE, service.metadata.name ?? '', errors);

/** What one write reserved and what it gives up once stored. */
interface Reserved {
  ips: Map<string, string>;
  ports: number[];
}

export class ServiceAllocator implements ResourceAllocator<Service> {
  private readonly byFamily: Map<string, ClusterIPAllocator>;

  constructor(
    ipAllocators: readonly ClusterIPAllocator[],
    private readonly nodePorts: NodePortAllocator,
  ) {
    this.byFamily = new Map(ipAllocators.map((a) => [a.family, a]));
  }

  private get defaultFamily(): string {
    return [...this.byFamily.keys()][0]!;
  }

  /** upstream's initIPFamilyFields: ipFamilyPolicy and ipFamilies defaulted and checked against the cluster's ranges. */
  private initIPFamilies(service: Service, old: Service | undefined): void {
    const s = service.spec!;
    if (s.type === 'ExternalName') return;
    if (s.ipFamilyPolicy === undefined) {
      if (old?.spec?.ipFamilyPolicy !== undefined) s.ipFamilyPolicy = old.spec.ipFamilyPolicy;
      // A headless Service without selector gets every family the cluster has.
      else s.ipFamilyPolicy = s.clusterIP === CLUSTER_IP_NONE && !Object.keys(s.selector ?? {}).length ? 'RequireDualStack' : 'SingleStack';
    }
    const pre = validateClusterIPsRelatedFields(service);
    if (pre.length) throw refused(service, pre);
    const errors: FieldError[] = [];
    const policy = new GoFormatted(`"${s.ipFamilyPolicy}"`);
    if (old && s.ipFamilyPolicy === 'SingleStack') {
      // Setting SingleStack with the same IPs and families is clear intent: keep the primary.
      if (JSON.stringify(old.spec?.clusterIPs ?? []) === JSON.stringify(s.clusterIPs ?? []) && (s.clusterIPs?.length ?? 0) > 1) s.clusterIPs = s.clusterIPs!.slice(0, 1);
      if (JSON.stringify(old.spec?.ipFamilies ?? []) === JSON.stringify(s.ipFamilies ?? []) && (s.ipFamilies?.length ?? 0) > 1) s.ipFamilies = s.ipFamilies!.slice(0, 1);
    }
    if (s.ipFamilyPolicy === 'SingleStack') {
      if (s.clusterIPs?.length === 2) errors.push(invalid(spec.child('ipFamilyPolicy'), policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
      if (s.ipFamilies?.length === 2) errors.push(invalid(spec.child('ipFamilyPolicy'), policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
    }
    const families = (s.ipFamilies ??= []);
    for (const [i, ip] of (s.clusterIPs ?? []).entries()) {
      if (ip === CLUSTER_IP_NONE) break;
      const family = familyOf(ip);
      if (i >= families.length) {
        if (!this.byFamily.has(family)) errors.push(invalid(spec.child('clusterIPs').index(i), goStrings(s.clusterIPs), `${family} is not configured on this cluster`));
        else families.push(family);
      }
    }
    if (errors.length) throw refused(service, errors);
    if (s.clusterIP === CLUSTER_IP_NONE && !Object.keys(s.selector ?? {}).length) {
      if (!families.length) families.push(this.defaultFamily);
      if (families.length < 2 && s.ipFamilyPolicy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
      return;
    }
    if (s.ipFamilyPolicy === 'RequireDualStack' && this.byFamily.size < 2) {
      errors.push(invalid(spec.child('ipFamilyPolicy'), policy, 'this cluster is not configured for dual-stack services'));
    }
    families.forEach((family, i) => {
      if (!this.byFamily.has(family)) errors.push(invalid(spec.child('ipFamilies').index(i), family, 'not configured on this cluster'));
    });
    if (errors.length) throw refused(service, errors);
    if (!families.length) families.push(this.defaultFamily);
    if (s.ipFamilyPolicy !== 'SingleStack' && families.length === 1 && this.byFamily.size === 2) families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
  }

  /** Reserves an address for each family without one (`from`: the first family index to look at). */
  private async allocateIPs(service: Service, from: number, context: AllocationContext, reserved: Reserved): Promise<void> {
    const { dryRun, domain } = context;
    const s = service.spec!;
    const ips = (s.clusterIPs ??= []);
    const ref = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '', domain };
    for (let i = from; i < (s.ipFamilies ?? []).length; i++) {
      const family = s.ipFamilies![i]!;
      const allocator = this.byFamily.get(family)!;
      const wanted = ips[i] ?? '';
      try {
        const ip = wanted ? await allocator.allocate(wanted, ref, dryRun) : await allocator.allocateNext(ref, dryRun);
        ips[i] = ip;
        reserved.ips.set(family, ip);
      } catch (error) {
        if (!(error instanceof AllocationError)) throw error;
        if (!wanted) throw newInternalError(new Error(`failed to allocate a serviceIP: ${error.message}`));
        throw refused(service, [invalid(spec.child('clusterIPs'), goStrings(s.clusterIPs), `failed to allocate IP ${wanted}: ${error.message}`)]);
      }
    }
    if (ips.length) s.clusterIP = ips[0]!;
  }

  /** Reserves the node ports the Service asks for (those in `kept` are its already), filling the ports in place. */
  private async allocatePorts(service: Service, kept: ReadonlySet<number>, dryRun: boolean, reserved: Reserved): Promise<void> {
    const s = service.spec!;
    const ports = s.ports ?? [];
    const byPort = new Map<number, number>();
    const requested: number[] = [];
    const needing: number[] = [];
    ports.forEach((port, i) => {
      if (!port.nodePort && !shouldAllocateNodePorts(service)) return;
      if (port.nodePort) {
        if (!kept.has(port.nodePort) && !requested.includes(port.nodePort)) requested.push(port.nodePort);
        byPort.set(port.port ?? 0, port.nodePort);
      } else needing.push(i);
    });
    // A port number served over two protocols shares its node port (upstream's svcPortToNodePort).
    const dynamicIndexes = needing.filter((i) => !byPort.has(ports[i]!.port ?? 0) || !ports[i]!.nodePort);
    const uniqueDynamic = [...new Set(dynamicIndexes.map((i) => ports[i]!.port ?? 0))].filter((p) => !byPort.has(p));
    const hc = needsHealthCheck(service) && !s.healthCheckNodePort ? 1 : 0;
    if (needsHealthCheck(service) && s.healthCheckNodePort && !kept.has(s.healthCheckNodePort)) requested.push(s.healthCheckNodePort);
    if (!requested.length && !uniqueDynamic.length && !hc) return;
    let chosen: number[];
    try {
      chosen = await this.nodePorts.allocate({ requested, dynamic: uniqueDynamic.length + hc }, dryRun);
    } catch (error) {
      if (!(error instanceof PortAllocationError)) throw error;
      if (error.port === undefined) throw newInternalError(new Error(`failed to allocate a nodePort: ${error.message}`));
      const index = ports.findIndex((p) => p.nodePort === error.port);
      const path = index === -1 ? spec.child('healthCheckNodePort') : spec.child('ports').index(index).child('nodePort');
      throw refused(service, [invalid(path, error.port, error.message)]);
    }
    reserved.ports.push(...requested, ...chosen);
    uniqueDynamic.forEach((port, i) => byPort.set(port, chosen[i]!));
    for (const i of needing) ports[i]!.nodePort = byPort.get(ports[i]!.port ?? 0)!;
    if (hc) s.healthCheckNodePort = chosen[chosen.length - 1]!;
  }

  private async giveBack(reserved: Reserved, dryRun: boolean): Promise<void> {
    for (const [family, ip] of reserved.ips) await this.byFamily.get(family)?.release(ip, dryRun);
    if (reserved.ports.length) await this.nodePorts.release(reserved.ports, dryRun);
  }

  private transaction(reserved: Reserved, released: Reserved, dryRun: boolean): Allocation {
    if (!reserved.ips.size && !reserved.ports.length && !released.ips.size && !released.ports.length) return noAllocation;
    return { commit: () => this.giveBack(released, dryRun), revert: () => this.giveBack(reserved, dryRun) };
  }

  async allocate(service: Service, old: Service | undefined, context: AllocationContext): Promise<Allocation> {
    service.spec ??= {};
    const { dryRun } = context;
    const reserved: Reserved = { ips: new Map(), ports: [] };
    const released: Reserved = { ips: new Map(), ports: [] };
    try {
      this.initIPFamilies(service, old);
      await this.reserveIPs(service, old, context, reserved, released);
      const oldPorts = old && needsNodePort(old) ? nodePortsOf(old) : new Set<number>();
      if (needsNodePort(service)) await this.allocatePorts(service, oldPorts, dryRun, reserved);
      else if (needsHealthCheck(service)) await this.allocatePorts(service, oldPorts, dryRun, reserved);
      const newPorts = needsNodePort(service) || needsHealthCheck(service) ? nodePortsOf(service) : new Set<number>();
      released.ports.push(...[...oldPorts].filter((port) => !newPorts.has(port)));
    } catch (error) {
      await this.giveBack(reserved, dryRun);
      throw error;
    }
    return this.transaction(reserved, released, dryRun);
  }

  private async reserveIPs(service: Service, old: Service | undefined, context: AllocationContext, reserved: Reserved, released: Reserved): Promise<void> {
    const s = service.spec!;
    const headless = (x: Service): boolean => x.spec?.clusterIPs?.[0] === CLUSTER_IP_NONE;
    if (!old || !needsClusterIP(old)) {
      if (needsClusterIP(service) && !headless(service)) await this.allocateIPs(service, 0, context, reserved);
      return;
    }
    if (headless(old)) return;
    const before = old.spec ?? {};
    if (!needsClusterIP(service)) {
      (before.ipFamilies ?? []).forEach((family, i) => before.clusterIPs?.[i] && released.ips.set(family, before.clusterIPs[i]!));
      return;
    }
    const families = s.ipFamilies ?? [];
    if ((before.ipFamilies?.length ?? 0) === 1 && families.length === 2) await this.allocateIPs(service, 1, context, reserved);
    else if ((before.ipFamilies?.length ?? 0) === 2 && families.length === 1 && before.clusterIPs?.[1]) released.ips.set(before.ipFamilies![1]!, before.clusterIPs[1]);
  }

  async release(service: Service, context: AllocationContext): Promise<void> {
    const s = service.spec ?? {};
    const reserved: Reserved = { ips: new Map(), ports: [] };
    if (needsClusterIP(service) && s.clusterIPs?.[0] !== CLUSTER_IP_NONE) (s.ipFamilies ?? []).forEach((family, i) => s.clusterIPs?.[i] && reserved.ips.set(family, s.clusterIPs[i]!));
    reserved.ports.push(...nodePortsOf(service));
    await this.giveBack(reserved, context.dryRun);
  }
}

/** The node ports a Service holds (its ports' and its health check's). */
function nodePortsOf(service: Service): Set<number> {
  const ports = new Set((service.spec?.ports ?? []).flatMap((p) => (p.nodePort ? [p.nodePort] : [])));
  if (service.spec?.healthCheckNodePort) ports.add(service.spec.healthCheckNodePort);
  return ports;
}
