// Node ports from --service-node-port-range, as upstream 1.28 keeps them: the set of used ports in one
// record (its RangeAllocation at /ranges/servicenodeports) changed only by compare-and-swap, so two
// replicas cannot hand out the same port: the loser of a swap reads again and decides again. A
// Service's ports are taken in one swap and given back in one. Errors are upstream's texts.
export const ERR_PORT_ALLOCATED = 'provided port is already allocated';
export const ERR_PORTS_FULL = 'range is full';
export const portNotInRange = (range: PortRange): string =>
  `provided port is not in the valid range. The range of valid ports is ${range.base}-${range.base + range.size - 1}`;

export interface PortRange {
  base: number;
  size: number;
}

/** kube-apiserver's default --service-node-port-range. */
export const DEFAULT_NODE_PORT_RANGE = '30000-32767';

/** utilnet.ParsePortRange: "30000-32767" or "30000+2767"; undefined where it is none. */
export function parsePortRange(text: string): PortRange | undefined {
  const match = /^([0-9]+)([-+])([0-9]+)$/.exec(text.trim());
  if (!match) return undefined;
  const base = Number(match[1]);
  const size = match[2] === '-' ? Number(match[3]) - base + 1 : Number(match[3]) + 1;
  if (base < 0 || base > 65535 || size < 1 || base + size - 1 > 65535) return undefined;
  return { base, size };
}

/**
 * The record of used ports: `change` is given the ports in use and returns them changed, or throws
 * to refuse; the record is swapped only if no one changed it since the read (else `change` runs again).
 */
export interface PortRecord {
  update(change: (used: ReadonlySet<number>) => Set<number>): Promise<void>;
  read(): Promise<ReadonlySet<number>>;
}

export class PortAllocationError extends Error {
  constructor(
    message: string,
    /** The requested port refused (a field error), or undefined where none was free (an internal error). */
    readonly port?: number,
  ) {
    super(message);
  }
}

/** What one write asks for: ports requested (reserved if free) and how many more to choose. */
export interface PortRequest {
  requested: readonly number[];
  dynamic: number;
}

export class NodePortAllocator {
  constructor(
    readonly range: PortRange,
    private readonly record: PortRecord,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * Reserves the requested ports and `dynamic` more in one swap; the chosen ones, in order. Dry run:
   * a requested port is checked (range, in use), none is reserved, the chosen ones are the range's first.
   */
  async allocate(request: PortRequest, dryRun = false): Promise<number[]> {
    for (const port of request.requested) {
      if (port < this.range.base || port >= this.range.base + this.range.size) throw new PortAllocationError(portNotInRange(this.range), port);
    }
    if (dryRun) {
      const used = await this.record.read();
      for (const port of request.requested) if (used.has(port)) throw new PortAllocationError(ERR_PORT_ALLOCATED, port);
      return Array.from({ length: request.dynamic }, (_, i) => this.range.base + i);
    }
    let chosen: number[] = [];
    await this.record.update((used) => {
      const next = new Set(used);
      for (const port of request.requested) {
        if (next.has(port)) throw new PortAllocationError(ERR_PORT_ALLOCATED, port);
        next.add(port);
      }
      chosen = [];
      const start = Math.floor(this.random() * this.range.size);
      for (let i = 0; i < this.range.size && chosen.length < request.dynamic; i++) {
        const port = this.range.base + ((start + i) % this.range.size);
        if (next.has(port)) continue;
        next.add(port);
        chosen.push(port);
      }
      if (chosen.length < request.dynamic) throw new PortAllocationError(ERR_PORTS_FULL);
      return next;
    });
    return chosen;
  }

  /** Gives the ports back (those out of the range are ignored, as upstream's Release). */
  async release(ports: readonly number[], dryRun = false): Promise<void> {
    const mine = ports.filter((port) => port >= this.range.base && port < this.range.base + this.range.size);
    if (dryRun || !mine.length) return;
    await this.record.update((used) => {
      const next = new Set(used);
      for (const port of mine) next.delete(port);
      return next;
    });
  }
}
