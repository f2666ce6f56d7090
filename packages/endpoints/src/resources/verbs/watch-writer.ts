// Writes a watch's runs of events to its stream, holding a bounded amount for a client that reads
// slowly or not at all.
//
// The first run (the initial state of a watch from resourceVersion 0 or unset, or with
// sendInitialEvents: a list of any size) is written a piece at a time, the next piece only once the
// stream has drained: written whole, fifty watchers of 60 ConfigMaps of 900 KB that never read held
// 54 MB each in the sockets' buffers (outside the heap, where the list budget never saw it), and the
// replica went to 7.9 GB. Its events are the watch cache's objects, shared, so the part not yet
// written costs references only. Upstream's watch writes its events one by one into the
// connection, blocking when it is full, which bounds the same thing.
//
// Later runs are written at once when the stream has room, else joined and kept for the next
// drain; a watcher that falls further behind than its backlog allows is closed (watch-backlog.ts).
// What a watcher holds, written and not yet drained plus kept, is reported to the memory budget.
import type { Writable } from 'node:stream';
import type { ApiWatchEvent } from '@plat/registry';
import type { JoinedRun, JoinedRuns, RunPosition } from './joined-runs.js';
import { WatchBacklog } from './watch-backlog.js';

/**
 * Bytes of the first run written at a time (a piece: small events joined, a large one in parts).
 * Larger than the stream's high-water mark (16 KiB), so a client that reads takes a piece per drain
 * with few round trips; small beside the 4 MiB the kernel already holds for a socket, so that what
 * a stalled watcher holds in the process (the piece, and TLS's encrypted copy) is small whatever
 * its objects weigh.
 */
export const INITIAL_SLICE_BYTES = 64 * 1024;

export interface WatchWriterOptions {
  /** How far behind, in bytes, the watcher may fall on later runs before it is closed. */
  backlogBytes: number;
  /** Whether the stream has gone (closed or destroyed). */
  gone(): boolean;
  /** A run was written (for the event metrics). */
  sent(joined: JoinedRun): void;
  /** The watcher fell too far behind: close it. */
  terminate(): void;
  /** What the watcher holds now, in bytes (a memory budget's holder). */
  held?(bytes: number): void;
  /** The first run has been written whole. */
  initialWritten?(): void;
}

export class WatchWriter {
  private first = true;
  /** The first run's events not written yet. */
  private initial: { run: readonly ApiWatchEvent[]; at: RunPosition } | undefined;
  /**
   * Runs that came while the stream had no room, joined, in order, for the next drain. Kept as
   * joined bytes rather than written: node would hand everything written to TLS at its next chance,
   * which copies and encrypts it for this one socket; these are shared with the watchers in step.
   */
  private pending: JoinedRun[] = [];
  private pendingBytes = 0;
  private readonly backlog: WatchBacklog;

  constructor(
    private readonly out: Writable,
    private readonly runs: JoinedRuns,
    private readonly options: WatchWriterOptions,
  ) {
    this.backlog = new WatchBacklog(options.backlogBytes);
    out.on('drain', this.drained);
  }

  /** Writes a run of events, or keeps it for the next drain; closes a watcher too far behind. */
  deliver(run: readonly ApiWatchEvent[]): void {
    if (this.options.gone()) return;
    if (this.first) {
      this.first = false;
      this.initial = run.length > 0 ? { run, at: { index: 0, offset: 0 } } : undefined;
      if (this.initial === undefined) this.options.initialWritten?.();
      this.writeInitial();
      this.report();
      return;
    }
    if (this.backlog.over(this.out.writableLength + this.pendingBytes)) {
      // What it holds is dropped with the connection; the client watches again from its last
      // resourceVersion, as after any broken watch.
      this.options.terminate();
      this.report();
      return;
    }
    const joined = this.runs.join(run);
    if (this.initial === undefined && this.pending.length === 0 && !this.out.writableNeedDrain) this.send(joined);
    else {
      this.pending.push(joined);
      this.pendingBytes += joined.bytes.byteLength;
    }
    this.report();
  }

  /**
   * The stream is ending (the watch's timeout, or shutdown): what is left goes out where it is
   * within the backlog the watcher may hold, else the connection is closed and the client resumes
   * from its last resourceVersion.
   */
  end(): void {
    this.out.off('drain', this.drained);
    if (this.options.gone()) return this.report(0);
    let budget = this.options.backlogBytes - this.out.writableLength;
    while (this.initial !== undefined && budget > 0) budget -= this.pieceOfInitial();
    if (this.initial !== undefined || this.pendingBytes > budget) {
      this.options.terminate();
      return this.report(0);
    }
    this.flushPending();
    this.report(0);
  }

  /** The connection closed: nothing is held any more. */
  close(): void {
    this.out.off('drain', this.drained);
    this.initial = undefined;
    this.pending = [];
    this.pendingBytes = 0;
    this.report(0);
  }

  private readonly drained = (): void => {
    if (this.options.gone()) return;
    this.writeInitial();
    if (this.initial === undefined) this.flushPending();
    this.report();
  };

  /** Pieces of the first run while the stream has room. */
  private writeInitial(): void {
    while (this.initial !== undefined && !this.out.writableNeedDrain) this.pieceOfInitial();
  }

  /** Writes the first run's next piece; its size in bytes. */
  private pieceOfInitial(): number {
    const initial = this.initial!;
    const { joined, next } = this.runs.piece(initial.run, initial.at, INITIAL_SLICE_BYTES);
    initial.at = next;
    if (next.index >= initial.run.length) {
      this.initial = undefined;
      this.options.initialWritten?.();
    }
    this.send(joined);
    return joined.bytes.byteLength;
  }

  private flushPending(): void {
    if (this.pending.length === 0) return;
    const waiting = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const joined of waiting) this.send(joined);
  }

  private send(joined: JoinedRun): void {
    this.options.sent(joined);
    this.out.write(joined.bytes);
  }

  private report(bytes = this.out.writableLength + this.pendingBytes): void {
    this.options.held?.(bytes);
  }
}
