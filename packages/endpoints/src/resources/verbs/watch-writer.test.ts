import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { ApiWatchEvent } from '@plat/registry';
import { JoinedRuns } from './joined-runs.js';
import { INITIAL_SLICE_BYTES, WatchWriter } from './watch-writer.js';

/** A stream whose writes complete only when the test lets them (a client that reads when told). */
class ControlledStream extends Writable {
  readonly received: Buffer[] = [];
  private readonly waiting: (() => void)[] = [];
  constructor() {
    super({ highWaterMark: 16 * 1024 });
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.received.push(chunk);
    this.waiting.push(done);
  }
  /** The client reads everything written so far. */
  readAll(): void {
    for (const done of this.waiting.splice(0)) done();
  }
  get text(): string {
    return Buffer.concat(this.received).toString();
  }
}

const event = (name: string, bytes: number): ApiWatchEvent => ({ type: 'ADDED', object: { metadata: { name }, data: 'x'.repeat(bytes) } });
const frame = (e: ApiWatchEvent): Uint8Array => Buffer.from(`${JSON.stringify(e)}\n`);
const names = (text: string): string[] => text.trim().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name);
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function writerOn(out: ControlledStream, backlogBytes = 4 * 1024 * 1024, runs = new JoinedRuns(frame)) {
  const seen = { terminated: 0, held: 0, maxHeld: 0, initialWritten: 0, events: 0 };
  const writer = new WatchWriter(out, runs, {
    backlogBytes,
    gone: () => out.destroyed,
    sent: ({ sizes }) => (seen.events += sizes.length),
    terminate: () => {
      seen.terminated++;
      out.destroy();
    },
    held: (bytes) => {
      seen.held = bytes;
      seen.maxHeld = Math.max(seen.maxHeld, bytes);
    },
    initialWritten: () => seen.initialWritten++,
  });
  return { writer, seen };
}

test('a large initial state is written a slice at a time, as the client reads, in order', async () => {
  const out = new ControlledStream();
  const { writer, seen } = writerOn(out);
  const initial = Array.from({ length: 100 }, (_, i) => event(`o${i}`, 100 * 1024));
  writer.deliver(initial);
  // The client has read nothing: one slice is written, the rest waits.
  assert.ok(out.writableLength <= INITIAL_SLICE_BYTES + 110 * 1024, `${out.writableLength} bytes written unread`);
  assert.equal(seen.held, out.writableLength);
  assert.equal(seen.initialWritten, 0);
  for (let turns = 0; seen.initialWritten === 0 && turns < 1000; turns++) {
    out.readAll();
    await settle();
    assert.ok(out.writableLength <= INITIAL_SLICE_BYTES + 110 * 1024);
  }
  assert.equal(seen.initialWritten, 1);
  out.readAll();
  assert.deepEqual(names(out.text), initial.map((_, i) => `o${i}`));
  assert.equal(seen.events, 100);
  assert.ok(seen.maxHeld <= INITIAL_SLICE_BYTES + 110 * 1024, `held at most ${seen.maxHeld}`);
});

test('later runs wait behind the initial state, count as backlog, and close a watcher too far behind', async () => {
  const out = new ControlledStream();
  const { writer, seen } = writerOn(out, 1024 * 1024);
  writer.deliver(Array.from({ length: 50 }, (_, i) => event(`o${i}`, 100 * 1024)));
  writer.deliver([event('live-1', 1000)]);
  writer.deliver([event('live-2', 1000)]);
  assert.equal(seen.terminated, 0);
  assert.ok(seen.held > out.writableLength, 'the kept runs are held');
  // The client reads on: the initial state goes out, then the kept runs, in order.
  for (let turns = 0; out.writableLength > 0 && turns < 1000; turns++) {
    out.readAll();
    await settle();
  }
  assert.deepEqual(names(out.text).slice(-3), ['o49', 'live-1', 'live-2']);
  // It stops reading; live events pass the backlog: closed.
  for (let i = 0; i < 20 && seen.terminated === 0; i++) writer.deliver([event(`late-${i}`, 100 * 1024)]);
  assert.equal(seen.terminated, 1);
  assert.ok(out.destroyed);
});

test('at its end a watch sends what is left within its backlog, or is closed', async () => {
  const small = new ControlledStream();
  const done = writerOn(small);
  done.writer.deliver([event('a', 10)]);
  done.writer.deliver([event('b', 10)]);
  done.writer.end();
  small.readAll();
  await settle();
  small.readAll();
  assert.deepEqual(names(small.text), ['a', 'b']);
  assert.equal(done.seen.terminated, 0);
  assert.equal(done.seen.held, 0);

  const stalled = new ControlledStream();
  const cut = writerOn(stalled, 1024 * 1024);
  cut.writer.deliver(Array.from({ length: 100 }, (_, i) => event(`o${i}`, 100 * 1024)));
  cut.writer.end();
  assert.equal(cut.seen.terminated, 1, 'ten MB left for a client that does not read: closed');
  assert.equal(cut.seen.held, 0);
});

/** The data of an HTTP/1.1 chunked body. */
function unchunked(body: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const line = body.indexOf('\r\n', at);
    const size = parseInt(body.subarray(at, line).toString(), 16);
    parts.push(body.subarray(line + 2, line + 2 + size));
    assert.equal(body.subarray(line + 2 + size, line + 4 + size).toString(), '\r\n');
    at = line + 4 + size;
  }
  return Buffer.concat(parts).toString();
}

test('an event larger than a piece goes out in parts (as chunks over HTTP/1.1), each frame made once', async () => {
  const out = new ControlledStream();
  let framed = 0;
  // Framed per watcher and not kept, as a Table's frames are: a part must not frame its event again.
  const counting = (e: ApiWatchEvent): Uint8Array => {
    framed++;
    return frame(e);
  };
  const { writer, seen } = writerOn(out, 4 * 1024 * 1024, new JoinedRuns(counting, { chunked: true }));
  const initial = [event('small-1', 10), event('huge', 1024 * 1024), event('small-2', 10), event('small-3', 10)];
  writer.deliver(initial);
  for (let turns = 0; seen.initialWritten === 0 && turns < 1000; turns++) {
    assert.ok(out.writableLength <= 2 * INITIAL_SLICE_BYTES, `${out.writableLength} bytes written unread`);
    out.readAll();
    await settle();
  }
  out.readAll();
  assert.deepEqual(names(unchunked(Buffer.concat(out.received))), ['small-1', 'huge', 'small-2', 'small-3']);
  assert.equal(framed, 4);
  assert.equal(seen.events, 4);
});
