// Time to live on the embedded backends, as etcd's leases give it: a version of a key written with a
// TTL is deleted once its time has come, by an ordinary delete (a new revision, a DELETED event for
// watchers), unless the key was written again meanwhile (the new version carries its own expiry, or
// none). The delete compares on the version's revision, so a write that races the timer wins.
import { firstIndex } from './sorted.js';

interface Due {
  key: string;
  modRevision: number;
  /** Epoch milliseconds. */
  at: number;
}

/** setTimeout's longest delay; a later due time is reached in more than one wait. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class ExpiryTimer {
  /** Every version waiting for its time, by due time (equal times in the order they were added). */
  private queue: Due[] = [];
  /** The version of each key whose expiry counts: older entries in the queue are skipped. */
  private readonly pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private stopped = false;

  /**
   * @param expire deletes `key` if its current version is still `modRevision` (a compare-and-delete);
   *   a failure is reported to `onError` and the version is not tried again (etcd revokes a lease once).
   */
  constructor(
    private readonly expire: (key: string, modRevision: number) => Promise<unknown>,
    private readonly onError: (error: unknown) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `key` has a version waiting to expire (a write that replaces it must call `forget`). */
  has(key: string): boolean {
    return this.pending.has(key);
  }

  /** The version `modRevision` of `key` expires at `at` (epoch ms), replacing any earlier version's expiry. */
  add(key: string, modRevision: number, at: number): void {
    if (this.stopped) return;
    this.pending.set(key, modRevision);
    // TTLs are mostly alike, so a new due time is mostly the latest: the search ends near the end.
    this.queue.splice(firstIndex(this.queue, (due) => due.at > at), 0, { key, modRevision, at });
    if (at < this.timerAt) this.schedule();
  }

  /** `key` was written again or deleted: its waiting version no longer expires. */
  forget(key: string): void {
    this.pending.delete(key);
  }

  /** Ends the timer; nothing expires after this. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
    this.pending.clear();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    const next = this.queue[0];
    if (!next || this.stopped) return;
    this.timerAt = next.at;
    // The timer does not keep the process alive: an expiry is not work a process must stay for.
    this.timer = setTimeout(() => this.fire(), Math.min(MAX_DELAY_MS, Math.max(0, next.at - this.now())));
    this.timer.unref();
  }

  private fire(): void {
    const now = this.now();
    const due = this.queue.slice(0, firstIndex(this.queue, (entry) => entry.at > now));
    this.queue = this.queue.slice(due.length);
    for (const { key, modRevision } of due) {
      if (this.pending.get(key) !== modRevision) continue;
      this.pending.delete(key);
      this.expire(key, modRevision).catch(this.onError);
    }
    this.schedule();
  }
}

/** The epoch milliseconds at which a version written now with `ttlSeconds` expires. */
export const expiryTime = (ttlSeconds: number, now = Date.now()): number => now + ttlSeconds * 1000;
