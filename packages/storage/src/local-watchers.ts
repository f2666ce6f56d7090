// The watchers of an embedded backend, which makes every write in this process and so hands each
// event to its watchers the moment it is made.
import type { KVEvent, WatchHandle, WatchSink } from './kv.js';
import { gone } from './errors.js';

interface Watcher {
  start: string;
  end: string;
  sink: WatchSink;
}

export class LocalWatchers {
  private readonly watchers = new Set<Watcher>();

  /** @param revision the store's current revision, for progress notifications. */
  constructor(private readonly revision: () => number) {}

  /**
   * Adds a watcher of [start, end) once `replay` has pushed it the past events it asked for; Gone
   * (through the sink) when `afterRevision` is compacted. Call it without yielding to the event
   * loop between the replay and a write, so that no event falls between the two.
   */
  add(start: string, end: string, afterRevision: number, compacted: number, sink: WatchSink, replay: () => void): WatchHandle {
    const watcher: Watcher = { start, end, sink };
    const handle: WatchHandle = {
      stop: () => this.watchers.delete(watcher),
      pause() {},
      resume() {},
      // Writes reach every watcher synchronously, so everything up to the current revision is pushed.
      requestProgress: () => {
        if (this.watchers.has(watcher)) sink.progress?.(this.revision());
      },
    };
    if (afterRevision > 0 && afterRevision + 1 < compacted) {
      sink.fail(gone(afterRevision, compacted));
      return handle;
    }
    replay();
    this.watchers.add(watcher);
    return handle;
  }

  emit(event: KVEvent): void {
    const key = event.kv.key;
    for (const watcher of this.watchers) {
      if (key >= watcher.start && key < watcher.end) watcher.sink.push(event);
    }
  }

  /** Ends every watch with `error`. */
  failAll(error: unknown): void {
    for (const watcher of this.watchers) watcher.sink.fail(error);
    this.watchers.clear();
  }
}
