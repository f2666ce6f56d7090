// One watcher of a watch cache: the key (or prefix) it watches, what it has been handed, and where
// its runs go (its own queue, or the sink a consumer subscribed). Ending it ends the consumer's watch.
import type { WatchEvent, WatchSink } from '../interface.js';
import { EventQueue } from '../event-queue.js';

export class CacheWatcher {
  /** Runs wait here for an iteration, unless a sink takes them (Watch.subscribe). */
  readonly queue = new EventQueue<WatchEvent>({ highWaterMark: Number.MAX_SAFE_INTEGER });
  private sink: WatchSink | undefined;
  /** Watchers with the same key and recursion see the same events of a run. */
  readonly shareKey: string;
  /** Every event of its key up to this revision has been handed over. */
  handed: number;

  constructor(
    readonly key: string,
    readonly recursive: boolean,
    /** Only events above this revision are delivered. */
    after: number,
  ) {
    this.shareKey = `${recursive ? 'r' : 'k'}${key}`;
    this.handed = after;
  }

  matches(key: string): boolean {
    return this.recursive ? key.startsWith(this.key) : key === this.key;
  }

  /** Events handed over and not yet read. */
  get backlog(): number {
    return this.sink ? this.sink.backlog : this.queue.length;
  }

  deliver(run: WatchEvent[]): void {
    if (this.sink) this.sink.push(run);
    else this.queue.pushAll(run);
  }

  end(): void {
    if (this.sink) this.sink.end();
    else this.queue.end();
  }

  /** From now on runs go to `sink`; what waits already goes now. */
  subscribe(sink: WatchSink): void {
    if (this.sink) throw new Error('a watch delivers to one sink');
    const waiting = this.queue.takeAll();
    const ended = this.queue.closed;
    this.sink = sink;
    if (waiting.length) sink.push(waiting);
    if (ended) sink.end();
  }
}
