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

/** Go's strconv.Atoi, as its error reads. */
function atoi(text: string): number {
  if (!/^[+-]?[0-9]+$/.test(text)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
}

/**
 * upstream's utilnet.PortRange.Set: "30000-32767", "30000+2767" or one port; its errors as messages.
 * Empty: the default range.
 */
export function parsePortRange(text: string): PortRange {
  const value = text.trim();
  if (!value) return parsePortRange(DEFAULT_NODE_PORT_RANGE);
  const hyphen = value.indexOf('-');
  const plus = value.indexOf('+');
  let low: number;
  let high: number;
  if (hyphen === -1 && plus === -1) low = high = atoi(value);
  else if (hyphen !== -1 && plus === -1) {
    low = atoi(value.slice(0, hyphen));
    high = atoi(value.slice(hyphen + 1));
  } else if (plus !== -1 && hyphen === -1) {
    low = atoi(value.slice(0, plus));
    high = low + atoi(value.slice(plus + 1));
  } else throw new Error(`unable to parse port range: ${value}`);
  if (low > 65535 || high > 65535) throw new Error(`the port range cannot be greater than 65535: ${value}`);
  if (high < low) throw new Error(`end port cannot be less than start port: ${value}`);
  return { base: low, size: 1 + high - low };
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
   * Reserves the requested ports and `dynamic` more in one swap; the chosen ones, in order. Dry run,
   * as upstream's dry-run operation: a requested port is refused only when in use (its range is not
   * looked at), none is reserved, and the chosen ones are dummies after the highest requested
   * (32769 on when none is).
   */
  async allocate(request: PortRequest, dryRun = false): Promise<number[]> {
    if (dryRun) {
      const used = await this.record.read();
      for (const port of request.requested) if (used.has(port)) throw new PortAllocationError(ERR_PORT_ALLOCATED, port);
      const last = request.requested.length ? Math.max(...request.requested) : 32768;
      return Array.from({ length: request.dynamic }, (_, i) => last + 1 + i);
    }
    for (const port of request.requested) {
      if (port < this.range.base || port >= this.range.base + this.range.size) throw new PortAllocationError(portNotInRange(this.range), port);
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
