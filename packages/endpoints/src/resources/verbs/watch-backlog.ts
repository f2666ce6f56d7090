// How far behind a watcher may fall before it is closed, in bytes, so that a client that stops
// reading cannot make the server hold every event for it.
//
// A watcher's backlog is what has been handed to it and not yet taken by the kernel: the runs its
// writer keeps for the socket's next drain, and what node still holds of those written (the
// response's and socket's writableLength; for TLS, plaintext not yet encrypted into the socket's
// kernel buffer). Both paths count alike: the watch cache's and storage's own watch
// (--watch-cache=false). Upstream bounds the same thing in events (the watch cache closes a watcher
// whose channel, about a second of events, stays full) and counts it in
// apiserver_terminated_watchers_total; events here are of any size, so bytes are what bound memory.
//
// A watch's initial state (the list it starts with, of any size) is written a piece at a time as the
// client takes it (watch-writer.ts) and is not counted: the backlog is measured from the least the
// watcher has held since, so a client reading a large initial list while events come is not cut off
// for the list; the events that come meanwhile wait behind it and are counted.

/**
 * The default bound, 4 MiB, beyond what the kernel's socket buffers already hold (up to 4 MiB to
 * send on Linux, more on a long link). Room for two events of the largest object etcd stores (1.5
 * MiB by default) and hundreds of ordinary ones: more than upstream's channel of about a second of
 * events. A client that reads keeps far inside it; one that stops is closed, and resumes from its
 * last resourceVersion as after any broken watch. Served by storage directly (--watch-cache=false),
 * each watcher's backlog is its own copy of the events, so this is also what a stalled watcher can
 * hold of the replica's memory; with the watch cache, watchers in step share theirs.
 */
export const DEFAULT_WATCH_BACKLOG_BYTES = 4 * 1024 * 1024;

export class WatchBacklog {
  /** The least the watcher has held since its first run, as sampled. */
  private floor = Infinity;

  constructor(private readonly limitBytes: number) {}

  /**
   * Whether a watcher that holds `buffered` bytes when its next run comes is too far behind.
   * Called for every run after the first (the initial state, or the first events).
   */
  over(buffered: number): boolean {
    if (buffered < this.floor) this.floor = buffered;
    return buffered - this.floor > this.limitBytes;
  }
}
