// bench/api's watchers, in a worker thread: with 1,000 watchers and 200 writes/s the watchers read
// 200,000 events a second, and on one thread with the writer they would delay what they measure.
// Each worker opens its share of the watches and records, in memory shared with the main thread,
// when each event arrived.
import { parentPort, workerData } from 'node:worker_threads';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import type { OnReadOpts } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

export interface WatchersTask {
  port: number;
  ca: string;
  token: string;
  path: string;
  watchers: number;
  /**
   * 'http1': each watch its own TLS connection (HTTP/1.1); 'http2': the watches are streams of
   * `connections` HTTP/2 connections (ALPN h2), spread evenly, as informers of a few clients.
   */
  protocol: 'http1' | 'http2';
  connections: number;
  /** Shared with the main thread (see Arrivals): the first round's; each next round sends its own. */
  buffers: ArrivalBuffers;
}

/** Main thread -> worker: record into these from now on, or close the watches. */
export type WatchersMessage = { round: ArrivalBuffers } | 'close';

export interface ArrivalBuffers {
  /** The write index (`fan-<index>`) of the round's first write. */
  firstIndex: number;
  latencies: SharedArrayBuffer;
  /** Beside each latency, its write's index in the round (-1: a write of another round). */
  writes: SharedArrayBuffer;
  first: SharedArrayBuffer;
  last: SharedArrayBuffer;
  /** [events read, latencies recorded] */
  counters: SharedArrayBuffer;
}

/**
 * What one worker's watchers saw in one round, in arrays shared with the main thread and sized up
 * front: 1,000 watchers and 200 writes/s make 200,000 arrivals a second.
 */
export class Arrivals {
  /** Delivery latency (write sent -> event read) of every measured event every watcher read. */
  readonly latencies: Float64Array;
  readonly writes: Int32Array;
  /** Per write index: the first and last watcher's arrival time. */
  readonly first: Float64Array;
  readonly last: Float64Array;
  private readonly counters: Int32Array;

  constructor(readonly buffers: ArrivalBuffers) {
    this.latencies = new Float64Array(buffers.latencies);
    this.writes = new Int32Array(buffers.writes);
    this.first = new Float64Array(buffers.first);
    this.last = new Float64Array(buffers.last);
    this.counters = new Int32Array(buffers.counters);
  }

  static allocate(firstIndex: number, writes: number, watchers: number): Arrivals {
    const arrivals = new Arrivals({
      firstIndex,
      latencies: new SharedArrayBuffer(writes * watchers * 8),
      writes: new SharedArrayBuffer(writes * watchers * 4),
      first: new SharedArrayBuffer(writes * 8),
      last: new SharedArrayBuffer(writes * 8),
      counters: new SharedArrayBuffer(8),
    });
    arrivals.first.fill(Infinity);
    arrivals.last.fill(-Infinity);
    return arrivals;
  }

  /** Events read so far, measured or not. */
  get delivered(): number {
    return Atomics.load(this.counters, 0);
  }

  /** `count` events read, measured or not. */
  deliveries(count: number): void {
    Atomics.add(this.counters, 0, count);
  }

  get recorded(): number {
    return Atomics.load(this.counters, 1);
  }

  /** One measured event's arrival: `writeIndex` is the write's, counted from the first write of all rounds. */
  record(writeIndex: number, sentAt: number, now: number): void {
    const index = writeIndex - this.buffers.firstIndex;
    const count = this.counters[1]!;
    const inRound = index >= 0 && index < this.first.length;
    if (count < this.latencies.length) {
      this.latencies[count] = now - sentAt;
      this.writes[count] = inRound ? index : -1;
      Atomics.store(this.counters, 1, count + 1);
    }
    if (inRound) {
      if (now < this.first[index]!) this.first[index] = now;
      if (now > this.last[index]!) this.last[index] = now;
    }
  }
}

/**
 * A fan-out object's name says which write it is and when it was sent:
 * `fan-<write index>-<sent at, microseconds since the epoch>` (`warm-<i>-<sent at>` for the unmeasured
 * warm-up). The name comes first in an event's object metadata, so one short search per event
 * finds both figures, where a search for an annotation would scan most of the event.
 */
export const fanOutName = (writeIndex: number | undefined, i: number, sentAtMs: number): string =>
  writeIndex === undefined ? `warm-${i}-${Math.round(sentAtMs * 1000)}` : `fan-${writeIndex}-${Math.round(sentAtMs * 1000)}`;
const NAME = Buffer.from('"metadata":{"name":"');
const MEASURED = Buffer.from('fan-');
const HEADERS_END = Buffer.from('\r\n\r\n');

/** The whole number (digits) in `buffer` from `start` to the next other byte; its end in `end[0]`. */
function numberAt(buffer: Buffer, start: number, end: Int32Array): number {
  let value = 0;
  let i = start;
  for (; i < buffer.length; i++) {
    const byte = buffer[i]!;
    if (byte < 48 || byte > 57) break;
    value = value * 10 + (byte - 48);
  }
  end[0] = i;
  return value;
}

/** Incoming bytes of every watch of this thread land here, each read handled before the next. */
const readBuffer = Buffer.allocUnsafe(256 * 1024);
const numberEnd = new Int32Array(1);

/**
 * Reads a watch's body as it comes, scanning its complete lines as bytes for each event's name
 * alone (chunk-size lines carry none), and records the measured ones.
 */
class BodyScanner {
  /** The start of an incomplete line, copied out of the reused buffer. */
  private pending: Buffer | undefined;

  constructor(private readonly recorder: { arrivals: Arrivals }) {}

  scan(read: Buffer): void {
    let buffer = read;
    if (this.pending) {
      buffer = Buffer.concat([this.pending, buffer]);
      this.pending = undefined;
    }
    const now = performance.timeOrigin + performance.now();
    const complete = buffer.lastIndexOf(10) + 1;
    if (complete < buffer.length) this.pending = Buffer.from(buffer.subarray(complete));
    const { arrivals } = this.recorder;
    let events = 0;
    for (let at = buffer.indexOf(NAME); at >= 0 && at < complete; ) {
      const name = at + NAME.length;
      if (buffer.compare(MEASURED, 0, MEASURED.length, name, name + MEASURED.length) === 0) {
        const index = numberAt(buffer, name + MEASURED.length, numberEnd);
        const sentAtMicros = numberAt(buffer, numberEnd[0]! + 1, numberEnd);
        arrivals.record(index, sentAtMicros / 1000, now);
      }
      events++;
      // On to the next event's line: the rest of this one holds no other name.
      const lineEnd = buffer.indexOf(10, name);
      at = lineEnd < 0 ? -1 : buffer.indexOf(NAME, lineEnd + 1);
    }
    if (events) arrivals.deliveries(events);
  }
}

/**
 * A watch over its own TLS connection (HTTP/1.1) of objects named by fanOutName. The watchers share
 * this process (and the machine) with the writer, the replica and etcd, so they do as little as a
 * client can: no HTTP client and no stream (the socket's `onread` hands each read over in one
 * reused buffer), the body scanned as bytes (BodyScanner).
 */
function openWatch(task: WatchersTask, recorder: { arrivals: Arrivals }): Promise<() => void> {
  return new Promise((resolve, reject) => {
    /** The start of the headers, copied out of the reused buffer. */
    let pending: Buffer | undefined;
    let inBody = false;
    const body = new BodyScanner(recorder);
    const onRead = (length: number, read: Uint8Array): boolean => {
      let buffer = Buffer.from(read.buffer, read.byteOffset, length);
      if (!inBody) {
        if (pending) {
          buffer = Buffer.concat([pending, buffer]);
          pending = undefined;
        }
        const end = buffer.indexOf(HEADERS_END);
        if (end < 0) {
          pending = Buffer.from(buffer);
          return true;
        }
        const status = buffer.subarray(0, buffer.indexOf(13)).toString();
        if (!status.startsWith('HTTP/1.1 200')) {
          socket.destroy();
          reject(new Error(`watch ${task.path}: ${status}`));
          return false;
        }
        inBody = true;
        resolve(() => socket.destroy());
        buffer = buffer.subarray(end + HEADERS_END.length);
      }
      body.scan(buffer);
      return true;
    };
    // tls.connect takes net's onread (documented; @types/node leaves it out of ConnectionOptions).
    const options: ConnectionOptions & { onread: OnReadOpts } = { host: '127.0.0.1', port: task.port, ca: task.ca, onread: { buffer: readBuffer, callback: onRead } };
    const socket = tlsConnect(options, () => {
      socket.write(`GET ${task.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${task.token}\r\n\r\n`);
    });
    socket.on('error', (error) => {
      if (!inBody) reject(error);
    });
  });
}

/** An HTTP/2 connection (ALPN h2) to the replica, for watches as its streams. */
function openConnection(task: WatchersTask): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(`https://127.0.0.1:${task.port}`, { ca: task.ca });
    session.once('remoteSettings', () => resolve(session));
    session.once('error', reject);
  });
}

/** A watch as a stream of an HTTP/2 connection: node's HTTP/2 client frames it, BodyScanner reads it. */
function openStream(session: ClientHttp2Session, task: WatchersTask, recorder: { arrivals: Arrivals }): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': task.path, authorization: `Bearer ${task.token}` });
    const body = new BodyScanner(recorder);
    stream.once('response', (headers) => {
      if (headers[':status'] !== 200) {
        stream.destroy();
        reject(new Error(`watch ${task.path}: ${headers[':status']}`));
        return;
      }
      resolve(() => stream.close());
    });
    stream.on('data', (chunk: Buffer) => body.scan(chunk));
    stream.on('error', reject);
  });
}

/** In the worker: open the watches and say so; then record each round where told, until told to close. */
async function run(task: WatchersTask): Promise<void> {
  const recorder = { arrivals: new Arrivals(task.buffers) };
  const closers: (() => void)[] = [];
  if (task.protocol === 'http2') {
    const sessions = await Promise.all(Array.from({ length: task.connections }, () => openConnection(task)));
    for (let i = 0; i < task.watchers; i += 50) {
      const opening = Array.from({ length: Math.min(50, task.watchers - i) }, (_, j) => openStream(sessions[(i + j) % sessions.length]!, task, recorder));
      closers.push(...(await Promise.all(opening)));
    }
    closers.push(() => sessions.forEach((session) => session.destroy()));
  } else {
    for (let i = 0; i < task.watchers; i += 50) {
      closers.push(...(await Promise.all(Array.from({ length: Math.min(50, task.watchers - i) }, () => openWatch(task, recorder)))));
    }
  }
  parentPort!.on('message', (message: WatchersMessage) => {
    if (message === 'close') {
      for (const close of closers) close();
      parentPort!.close();
      return;
    }
    recorder.arrivals = new Arrivals(message.round);
    parentPort!.postMessage('recording');
  });
  parentPort!.postMessage('open');
}

if (parentPort && workerData) await run(workerData as WatchersTask);
