// The used node ports of the cluster in one storage record, as upstream 1.28 keeps them (a
// RangeAllocation at /ranges/servicenodeports: the range and a bitmap). Every change is the
// storage's compare-and-swap (guaranteedUpdate: read, change, write if the revision is still the
// one read, else again), so replicas sharing the storage never hand out one port twice. One key
// rather than an object per port: a Service's ports are taken and given back in one write, and the
// record is what upstream's repair and tooling expect to find.
import type { PortRange, PortRecord } from '@plat/api';
import { isStorageError, type Storage, type StoredObject } from '@plat/storage';

export const NODE_PORTS_KEY = '/ranges/servicenodeports';

interface RangeAllocation extends StoredObject {
  apiVersion: 'v1';
  kind: 'RangeAllocation';
  metadata: { name: string; resourceVersion?: string };
  range: string;
  /** The bitmap, base64: bit i of byte i/8 (least significant first) is port base + i. */
  data: string;
}

function decode(record: RangeAllocation | null, range: PortRange): Set<number> {
  const used = new Set<number>();
  if (!record) return used;
  // A record of another range (the flag changed) is read by port numbers all the same.
  const [base] = record.range.split('-').map(Number);
  const bytes = Buffer.from(record.data, 'base64');
  for (let i = 0; i < bytes.length * 8; i++) if (bytes[i >> 3]! & (1 << (i & 7))) used.add((base ?? range.base) + i);
  return used;
}

function encode(used: ReadonlySet<number>, range: PortRange, resourceVersion: string | undefined): RangeAllocation {
  const bytes = Buffer.alloc(Math.ceil(range.size / 8));
  for (const port of used) {
    const i = port - range.base;
    if (i >= 0 && i < range.size) bytes[i >> 3]! |= 1 << (i & 7);
  }
  return {
    apiVersion: 'v1',
    kind: 'RangeAllocation',
    metadata: { name: '', ...(resourceVersion && { resourceVersion }) },
    range: `${range.base}-${range.base + range.size - 1}`,
    data: bytes.toString('base64'),
  };
}

export function storageNodePorts(storage: Storage, range: PortRange, key = NODE_PORTS_KEY): PortRecord {
  return {
    async read() {
      try {
        return decode(await storage.get<RangeAllocation>(key), range);
      } catch (error) {
        if (isStorageError(error, 'NotFound')) return new Set<number>();
        throw error;
      }
    },
    async update(change) {
      await storage.guaranteedUpdate<RangeAllocation>(key, (record) => encode(change(decode(record, range)), range, record?.metadata.resourceVersion), { ignoreNotFound: true });
    },
  };
}
