// One etcd watch over the raw gRPC stream, resumable without loss or repetition.
//
// It remembers the revision of the last event handed to the sink, resumes from the one after it on
// a new stream when the old one breaks (on whichever member the channel then uses), and reports a
// compacted start as Gone.
import type { KVEvent, KeyValue, WatchHandle, WatchSink } from '../kv.js';
import { gone, unavailable } from '../errors.js';
import type { ChannelStream, EtcdChannel } from './channel.js';
import { WATCH_PROGRESS_REQUEST, decodeWatchResponse, encodeWatchCreateRequest, type RawKeyValue, type WatchEventMessage, type WatchResponse } from './wire.js';

const WATCH = '/etcdserverpb.Watch/Watch';
const MIN_RETRY_MS = 50;
const MAX_RETRY_MS = 2000;

export const toKeyValue = (kv: RawKeyValue): KeyValue => ({
  key: kv.key.toString(),
  // Kept as bytes: the store decides whether they are JSON text or a transformer's output.
  value: kv.value,
  modRevision: kv.modRevision,
  createRevision: kv.createRevision,
});

function toKVEvent(event: WatchEventMessage): KVEvent {
  const previous = event.prevKv ? toKeyValue(event.prevKv) : undefined;
  if (event.type === 'delete') {
    const kv = { key: event.kv.key.toString(), value: '', modRevision: event.kv.modRevision, createRevision: 0 };
    return previous ? { type: 'delete', kv, previous } : { type: 'delete', kv };
  }
  const kv = toKeyValue(event.kv);
  return previous ? { type: 'put', kv, previous } : { type: 'put', kv };
}

export class EtcdWatch implements WatchHandle {
  private stream: ChannelStream | undefined;
  private stopped = false;
  private paused = false;
  private retryMs = MIN_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The revision the current stream was asked to start after. */
  private resumedAfter = 0;

  /**
   * @param lastRevision events above this revision are delivered; afterwards, the revision of the
   *   last event delivered (or of a progress notification), from which a new stream resumes.
   */
  constructor(
    private readonly channel: EtcdChannel,
    private readonly startKey: string,
    private readonly endKey: string,
    private lastRevision: number,
    private readonly sink: WatchSink,
    private readonly hooks: { onStreamOpened: (startRevision: number, endpoint: string) => void; onStop: () => void; progressRequests?: boolean },
  ) {
    // Only where etcd answers it after the events it follows (see EtcdKV.progressRequestsAreSafe).
    if (hooks.progressRequests) this.requestProgress = () => this.stream?.send(WATCH_PROGRESS_REQUEST);
  }

  /** etcd answers on this stream with a progress notification once the watcher is synced. */
  readonly requestProgress?: () => void;

  start(): void {
    this.connect();
  }

  private connect(): void {
    this.retryTimer = undefined;
    if (this.stopped) return;
    let stream: ChannelStream;
    try {
      stream = this.channel.openStream(WATCH, {
        onMessage: (message) => this.onResponse(stream, decodeWatchResponse(message)),
        onEnd: () => this.onBroken(stream),
      });
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.stream = stream;
    this.resumedAfter = this.lastRevision;
    this.hooks.onStreamOpened(this.lastRevision + 1, stream.endpoint);
    if (this.paused) stream.pause();
    stream.send(
      encodeWatchCreateRequest({
        key: Buffer.from(this.startKey),
        rangeEnd: Buffer.from(this.endKey),
        startRevision: this.lastRevision + 1,
        prevKv: true,
        progressNotify: true,
      }),
    );
  }

  private onResponse(stream: ChannelStream, response: WatchResponse): void {
    if (stream !== this.stream || this.stopped) return;
    if (response.canceled || response.compactRevision > 0) {
      const error =
        response.compactRevision > 0
          ? gone(this.lastRevision + 1, response.compactRevision)
          : unavailable(`etcd canceled the watch: ${response.cancelReason || 'no reason given'}`);
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
        this.lastRevision = Math.max(this.lastRevision, response.revision);
        this.sink.progress?.(this.lastRevision);
      }
      return;
    }
    for (const event of response.events) {
      const kvEvent = toKVEvent(event);
      // A resumed stream starts after what was delivered; this guards against a member that does not.
      if (kvEvent.kv.modRevision <= this.resumedAfter) continue;
      this.lastRevision = kvEvent.kv.modRevision;
      this.sink.push(kvEvent);
      if (this.stopped) return;
    }
  }

  private onBroken(stream: ChannelStream): void {
    if (stream !== this.stream || this.stopped) return;
    this.stream = undefined;
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => this.connect(), delay);
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
    this.stream?.cancel();
    this.stream = undefined;
    this.hooks.onStop();
  }
}
