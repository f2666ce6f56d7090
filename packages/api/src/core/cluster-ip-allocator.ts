// One family's cluster IPs as upstream 1.28 allocates them with MultiCIDRServiceAllocator: each
// address an IPAddress object named by the address, whose parent is the Service. Creating the object
// is the lock: of two replicas after one address, one creates it, the other gets AlreadyExists and
// tries the next. A dynamic address is looked for from a random point of the upper band, then of
// the lower band; a requested one is taken if free. Errors are upstream's texts (ipallocator's).
import type { KubeObject } from '@plat/registry';
import { contains, ipNumber, ipText, type IPFamily, type ServiceCIDR } from './service-ip-range.js';

export const ERR_FULL = 'range is full';
export const ERR_ALLOCATED = 'provided IP is already allocated';
export const notInRange = (ip: string, cidr: ServiceCIDR): string => `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${cidr.text}`;

/** upstream's labels on the IPAddress objects it manages. */
export const MANAGED_BY_LABEL = 'ipaddress.kubernetes.io/managed-by';
export const IP_FAMILY_LABEL = 'ipaddress.kubernetes.io/ip-family';
/** Its manager's name: upstream's `ipallocator.k8s.io`, under --api-domain. */
export const managedBy = (domain: string): string => `ipallocator.${domain}`;

export interface ServiceRef {
  namespace: string;
  name: string;
  /** --api-domain, which names the manager. */
  domain: string;
}

/** The IPAddress objects, as the allocator reads and writes them (the IPAddress kind's store). */
export interface IPAddressObjects {
  /** Creates it; false where one of that name exists already. */
  create(object: KubeObject): Promise<boolean>;
  /** Whether one of that name exists. */
  exists(name: string): Promise<boolean>;
  /** Deletes it (absent: nothing to do). */
  delete(name: string): Promise<void>;
}

export class AllocationError extends Error {}

export class ClusterIPAllocator {
  constructor(
    readonly cidr: ServiceCIDR,
    private readonly objects: IPAddressObjects,
    private readonly random: () => number = Math.random,
  ) {}

  get family(): IPFamily {
    return this.cidr.family;
  }

  private object(name: string, service: ServiceRef): KubeObject {
    // apiVersion and kind are the store's to give (the domain decides the group).
    return {
      metadata: { name, labels: { [IP_FAMILY_LABEL]: this.cidr.family, [MANAGED_BY_LABEL]: managedBy(service.domain) } },
      spec: { parentRef: { group: '', resource: 'services', namespace: service.namespace, name: service.name } },
    } as KubeObject;
  }

  /** Reserves a requested address (its canonical name); dry run: only the range is checked, as upstream's. */
  async allocate(ip: string, service: ServiceRef, dryRun = false): Promise<string> {
    const parsed = ipNumber(ip);
    if (!parsed || parsed.family !== this.cidr.family || !contains(this.cidr, parsed.value)) throw new AllocationError(notInRange(ip, this.cidr));
    const name = ipText(parsed.family, parsed.value);
    if (dryRun) return name;
    if (!(await this.objects.create(this.object(name, service)))) throw new AllocationError(ERR_ALLOCATED);
    return name;
  }

  /** Reserves a free address: upper band from a random point, then the lower band. Dry run: the network address, as upstream's. */
  async allocateNext(service: ServiceRef, dryRun = false): Promise<string> {
    if (dryRun) return ipText(this.cidr.family, this.cidr.network);
    const { first, last, offset } = this.cidr;
    const split = first + BigInt(offset);
    const upper = await this.fromBand(split, last, service);
    if (upper) return upper;
    const lower = offset > 0 ? await this.fromBand(first, split - 1n, service) : undefined;
    if (lower) return lower;
    throw new AllocationError(ERR_FULL);
  }

  private async fromBand(start: bigint, end: bigint, service: ServiceRef): Promise<string | undefined> {
    if (end < start) return undefined;
    const size = end - start + 1n;
    const offset = BigInt(Math.floor(this.random() * Number(size > 2n ** 52n ? 2n ** 52n : size)));
    for (let i = 0n; i < size; i++) {
      const name = ipText(this.cidr.family, start + ((offset + i) % size));
      if (await this.objects.exists(name)) continue;
      // Another replica may take it between the look and the create: then the next one.
      if (await this.objects.create(this.object(name, service))) return name;
    }
    return undefined;
  }

  async release(ip: string, dryRun = false): Promise<void> {
    if (dryRun) return;
    const parsed = ipNumber(ip);
    if (!parsed) return;
    await this.objects.delete(ipText(parsed.family, parsed.value));
  }
}
