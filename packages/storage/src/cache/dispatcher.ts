// How a watch cache hands its events to its watchers (upstream's cacher.go dispatch): in runs, paced
// over an interval when the resource is busy, a slice of watchers per turn of the event loop.
import type { WatchEvent } from '../interface.js';
import type { CacheWatcher } from './cache-watcher.js';
import type { EventWindow } from './event-window.js';

export interface DispatchSettings {
  /** Events a watcher may have unread before it is ended. */
  watcherBufferSize: number;
  /**
   * A busy resource with `dispatchFullAtWatchers` watchers or more hands events to each watcher at
   * most this often, the watcher taking all that came meanwhile at once; with fewer watchers the
   * interval shrinks in proportion (0: every event at once). A quiet one hands each event on at once.
   */
  dispatchIntervalMs: number;
  dispatchFullAtWatchers: number;
  /**
   * Watchers handed their runs in one turn of the event loop. The watchers are served in turn, a
   * slice at a time, the slices spread evenly over the interval (see `tick`).
   */
  dispatchSliceWatchers: number;
}

export class Dispatcher {
  /** In the order they are served: a watcher handed a run goes to the back. */
  readonly watchers = new Set<CacheWatcher>();
  /** Hand-overs allowed now (see `tick`), as of `creditAt` (performance.now()). */
  private credit = 0;
  private creditAt = -Infinity;
  private tickTimer: NodeJS.Timeout | undefined;
  /** Events handed to watchers, one per watcher that took each. */
  eventsDispatched = 0;

  constructor(
    private readonly window: EventWindow,
    private readonly settings: DispatchSettings,
  ) {}

  /** Serves watchers now if there is credit for one, else once there is (see `tick`). */
  schedule(): void {
    if (this.tickTimer === undefined) this.tick();
  }

  /** Ends every watcher (the cache stopped, or may have missed events). */
  endAll(): void {
    for (const watcher of this.watchers) watcher.end();
    this.watchers.clear();
  }

  stop(): void {
    clearTimeout(this.tickTimer);
    this.tickTimer = undefined;
    this.endAll();
  }

  /**
   * Hands the watchers that are behind what came since their last run each their run at once, as
   * many as the credit allows. A hand-over to a watcher costs far more than the events it carries
   * (its pipeline wakes, its socket is written): with a thousand watchers a busy resource pays it
   * once per watcher per interval. So hand-overs accrue as credit, `watchers` per interval, and
   * the watchers are served in turn as it comes: each waits at most about an interval, and their
   * writes are spread over it (a slice at most per turn of the event loop) instead of coming in
   * one burst for all of them, which the last would wait out too. Credit left unspent while the
   * resource is quiet (a run for each watcher, a slice at most) serves its next event at once.
   */
  private tick(): void {
    const now = performance.now();
    const watcherCount = this.watchers.size;
    if (watcherCount === 0) return;
    // Credit is kept for a slice at most, and for no more than one run to each watcher.
    const slice = Math.min(this.settings.dispatchSliceWatchers, watcherCount);
    const intervalMs = this.settings.dispatchIntervalMs * Math.min(1, watcherCount / this.settings.dispatchFullAtWatchers);
    const perMs = watcherCount / intervalMs;
    this.credit = perMs === Infinity ? slice : Math.min(slice, this.credit + (now - this.creditAt) * perMs);
    this.creditAt = now;
    const allowed = Math.floor(this.credit);
    const latest = this.window.lastEventRevision;
    // Watchers of the same key handed the same revision take the same run: one filter each.
    const runs = new Map<string, { handed: number; run: WatchEvent[] }[]>();
    const served: CacheWatcher[] = [];
    let behind = false;
    for (const watcher of this.watchers) {
      if (watcher.handed >= latest) continue;
      if (served.length >= allowed) {
        behind = true;
        break;
      }
      if (watcher.handed < this.window.start) {
        // Its events have left the window unhanded (only a process stalled for the whole window
        // gets here): end it, as one too slow; it resumes from its last revision.
        this.end(watcher);
        continue;
      }
      const run = this.runAfter(watcher, runs);
      watcher.handed = latest;
      if (run.length === 0) continue;
      if (watcher.backlog >= this.settings.watcherBufferSize) {
        // Too slow: a full buffer still unread from earlier runs. End it (it resumes from its last
        // revision) rather than hold the others back. A run itself may be larger than the buffer:
        // it holds one interval's events, which a watcher that keeps up takes at once.
        this.end(watcher);
        continue;
      }
      served.push(watcher);
      watcher.deliver(run);
      this.eventsDispatched += run.length;
    }
    this.credit -= served.length;
    for (const watcher of served) {
      // To the back of the line (unless it ended meanwhile).
      if (this.watchers.delete(watcher)) this.watchers.add(watcher);
    }
    if (!behind) return;
    // The rest on a later turn, after the I/O at hand, once there is credit for one more.
    this.tickTimer = setTimeout(
      () => {
        this.tickTimer = undefined;
        this.tick();
      },
      Math.max(0, (1 - this.credit) / perMs),
    );
  }

  /** The events after the watcher's last run that it watches (shared with its like in `runs`). */
  private runAfter(watcher: CacheWatcher, runs: Map<string, { handed: number; run: WatchEvent[] }[]>): WatchEvent[] {
    let alike = runs.get(watcher.shareKey);
    if (!alike) runs.set(watcher.shareKey, (alike = []));
    for (const entry of alike) if (entry.handed === watcher.handed) return entry.run;
    const run = this.window.eventsAfter(watcher.handed, (key) => watcher.matches(key));
    alike.push({ handed: watcher.handed, run });
    return run;
  }

  private end(watcher: CacheWatcher): void {
    watcher.end();
    this.watchers.delete(watcher);
  }
}
