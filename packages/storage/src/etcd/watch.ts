// One etcd watch over the raw gRPC stream, resumable without loss or repetition.
//
// etcd3's high-level Watcher resumes from a revision it advances before the catch-up events have
// all been delivered, and it hides the compaction revision (see LIBRARIES.md). So this drives the
// Watch RPC itself: it remembers the revision of the last event handed to the sink, resumes from
// the one after it on a new stream when the old one breaks, and reports a compacted start as Gone.
import type { Duplex } from 'node:stream';
import type { Etcd3, IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import type { KVEvent, WatchHandle, WatchSink } from '../kv.js';
import { gone, unavailable } from '../errors.js';
import { toKeyValue } from './key-value.js';

const MIN_RETRY_MS = 50;
const MAX_RETRY_MS = 2000;

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse> & Pick<Duplex, 'pause' | 'resume' | 'removeAllListeners'>;

function toKVEvent(event: IEvent): KVEvent {
  const previous = event.prev_kv ? toKeyValue(event.prev_kv) : undefined;
  if (event.type === 'Delete') {
    const kv = { key: event.kv.key.toString(), value: '', modRevision: Number(event.kv.mod_revision), createRevision: 0 };
    return previous ? { type: 'delete', kv, previous } : { type: 'delete', kv };
  }
  const kv = toKeyValue(event.kv);
  return previous ? { type: 'put', kv, previous } : { type: 'put', kv };
}

export class EtcdWatch implements WatchHandle {
  private stream: WatchStream | undefined;
  private stopped = false;
  private paused = false;
  private retryMs = MIN_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  /**
   * @param lastRevision events above this revision are delivered; afterwards, the revision of the
   *   last event delivered (or of a progress notification), from which a new stream resumes.
   */
  constructor(
    private readonly client: Etcd3,
    private readonly startKey: string,
    private readonly endKey: string,
    private lastRevision: number,
    private readonly sink: WatchSink,
    private readonly hooks: { onStreamOpened: (startRevision: number) => void; onStop: () => void; progressRequests?: boolean },
  ) {
    // Only where etcd answers it after the events it follows (see EtcdKV.progressRequestsAreSafe).
    if (hooks.progressRequests) this.requestProgress = () => this.stream?.write({ progress_request: {} });
  }

  /** etcd answers on this stream with a progress notification once the watcher is synced. */
  readonly requestProgress?: () => void;

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    this.retryTimer = undefined;
    if (this.stopped) return;
    let stream: WatchStream;
    try {
      stream = (await this.client.watchClient.watch()) as WatchStream;
    } catch {
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) {
      this.closeStream(stream);
      return;
    }
    this.stream = stream;
    this.hooks.onStreamOpened(this.lastRevision + 1);
    stream.on('data', (response: IWatchResponse) => this.onResponse(stream, response));
    stream.on('error', () => this.onBroken(stream));
    stream.on('end', () => this.onBroken(stream));
    if (this.paused) stream.pause();
    stream.write({
      create_request: {
        key: Buffer.from(this.startKey),
        range_end: Buffer.from(this.endKey),
        start_revision: this.lastRevision + 1,
        prev_kv: true,
        progress_notify: true,
      },
    });
  }

  private onResponse(stream: WatchStream, response: IWatchResponse): void {
    if (stream !== this.stream || this.stopped) return;
    const compactRevision = Number(response.compact_revision);
    if (response.canceled || compactRevision > 0) {
      const error =
        compactRevision > 0
          ? gone(this.lastRevision + 1, compactRevision)
          : unavailable(`etcd canceled the watch: ${response.cancel_reason || 'no reason given'}`);
      this.stop();
      this.sink.fail(error);
      return;
    }
    if (response.created) this.retryMs = MIN_RETRY_MS;
    if (response.events.length === 0) {
      // A progress notification: every event up to the header's revision has been sent. The
      // periodic ones (progress_notify) always keep that promise: etcd sends them only to a synced
      // watcher, under the lock its writes notify under. Requested ones are sent only where they
      // keep it too (see EtcdKV.progressRequestsAreSafe).
      if (!response.created) {
        this.lastRevision = Math.max(this.lastRevision, Number(response.header.revision));
        this.sink.progress?.(this.lastRevision);
      }
      return;
    }
    for (const event of response.events) {
      const kvEvent = toKVEvent(event);
      this.lastRevision = kvEvent.kv.modRevision;
      this.sink.push(kvEvent);
      if (this.stopped) return;
    }
  }

  private onBroken(stream: WatchStream): void {
    if (stream !== this.stream || this.stopped) return;
    this.stream = undefined;
    this.closeStream(stream);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }

  private closeStream(stream: WatchStream): void {
    stream.removeAllListeners('data');
    stream.on('error', () => {}); // a cancelled call reports CANCELLED; nobody is listening any more
    stream.cancel();
    stream.end();
  }

  pause(): void {
    this.paused = true;
    this.stream?.pause();
  }

  resume(): void {
    this.paused = false;
    this.stream?.resume();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.retryTimer);
    if (this.stream) this.closeStream(this.stream);
    this.stream = undefined;
    this.hooks.onStop();
  }
}
