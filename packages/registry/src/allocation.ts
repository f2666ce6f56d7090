// What a kind reserves outside its own object when it is written (a Service's cluster IPs and node
// ports), as upstream's REST storage of Services does with its BeginCreate / BeginUpdate hooks and
// AfterDelete: reserved after the object is judged valid and before it is stored, given back when
// the write fails, kept when it succeeds, and released when the object is gone. Storage has no
// transaction spanning both, so a write that fails after its reservation reverts it.
import type { KubeObject, StrategyContext } from './definition.js';

/** What one write reserved: kept by commit once the object is stored, given back by revert otherwise. */
export interface Allocation {
  commit(): Promise<void>;
  revert(): Promise<void>;
}

export interface AllocationContext extends StrategyContext {
  /** A dry run reserves nothing: it only checks, and fills what it would fill, as upstream's dry-run allocators. */
  dryRun: boolean;
}

/** A kind's reservations (ResourceDefinition.allocator). */
export interface ResourceAllocator<T extends KubeObject> {
  /**
   * Reserves what `object` needs (`old`: the stored object of an update, whose reservations it may
   * keep or give up on commit), filling it in place. Throws a StatusError to refuse the write.
   */
  allocate(object: T, old: T | undefined, context: AllocationContext): Promise<Allocation>;
  /** Gives back what a deleted object held. */
  release(object: T, context: AllocationContext): Promise<void>;
}

export const noAllocation: Allocation = { commit: async () => {}, revert: async () => {} };

/**
 * One write's reservations across the storage's retries: a retried update reverts what its last
 * attempt reserved before reserving again, and the write's outcome commits or reverts the last.
 */
export class WriteAllocation<T extends KubeObject> {
  private pending: Allocation = noAllocation;

  constructor(
    private readonly allocator: ResourceAllocator<T> | undefined,
    private readonly context: AllocationContext,
  ) {}

  /** `object` with its reservations made (in place), after any of an earlier attempt were given back. */
  async reserve(object: T, old: T | undefined): Promise<T> {
    if (!this.allocator) return object;
    const previous = this.pending;
    this.pending = noAllocation;
    await previous.revert();
    this.pending = await this.allocator.allocate(object, old, this.context);
    return object;
  }

  /** Runs the write: its reservations committed when it succeeds, reverted when it throws. */
  async around<R>(write: () => Promise<R>): Promise<R> {
    let result: R;
    try {
      result = await write();
    } catch (error) {
      await this.pending.revert();
      throw error;
    }
    await this.pending.commit();
    return result;
  }
}
