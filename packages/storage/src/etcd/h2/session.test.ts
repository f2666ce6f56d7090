import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHeaders } from './hpack.js';
import { H2Error, H2Session, type H2SessionOptions } from './session.js';
import { FLAG, FRAME, ScriptedPeer, grpcMessage, u32, type PeerConnection } from './scripted-peer.js';
import { EtcdChannel } from '../channel.js';

const HEADERS = encodeHeaders([
  [':method', 'POST'],
  [':scheme', 'http'],
  [':path', '/test'],
  [':authority', 'peer'],
]);

const SETTINGS_MAX_CONCURRENT_STREAMS = 3;
const SETTINGS_INITIAL_WINDOW_SIZE = 4;
const SETTINGS_MAX_FRAME_SIZE = 5;

let peer: ScriptedPeer;
const sessions: H2Session[] = [];
before(async () => {
  peer = await ScriptedPeer.listen();
});
afterEach(() => {
  for (const session of sessions.splice(0)) session.destroy('test over');
});
after(async () => {
  await peer.close();
});

/** A session to the scripted peer, which answers its SETTINGS with `settings`. */
async function connect(settings: Array<[number, number]> = [], options: Partial<H2SessionOptions> = {}): Promise<{ session: H2Session; conn: PeerConnection }> {
  const session = new H2Session(new URL(peer.url), { windowBytes: 1 << 20, ...options });
  sessions.push(session);
  const conn = await peer.accept();
  conn.settings(settings);
  await new Promise<void>((resolve) => session.onReady(resolve));
  return { session, conn };
}

const rejection = async (promise: Promise<unknown>): Promise<H2Error> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof H2Error, `an H2Error, not ${String(error)}`);
    return error;
  }
  assert.fail('the request should have failed');
};

/** The GOAWAY the client sent, as [last stream, error code]. */
async function goawayFrom(conn: PeerConnection): Promise<[number, number]> {
  const frame = await conn.next(FRAME.GOAWAY);
  return [frame.payload.readUInt32BE(0), frame.payload.readUInt32BE(4)];
}

describe('HTTP/2 client session against a scripted peer', () => {
  it('answers a request; its headers, body and trailers arrive', async () => {
    const { session, conn } = await connect();
    const call = session.request(HEADERS, Buffer.from('hello'));
    const headers = await conn.next(FRAME.HEADERS);
    assert.equal(headers.streamId, 1);
    const data = await conn.next(FRAME.DATA);
    assert.equal(data.payload.toString(), 'hello');
    assert.equal(data.flags & FLAG.END_STREAM, FLAG.END_STREAM);
    conn.answer(1, Buffer.from('world'));
    const response = await call.response;
    assert.deepEqual(response.headers, [[':status', '200'], ['content-type', 'application/grpc']]);
    assert.deepEqual(response.trailers, [['grpc-status', '0']]);
    assert.ok(response.body.subarray(5).equals(Buffer.from('world')));
  });

  it('a graceful GOAWAY lets the streams it took finish and fails the others as not processed', async () => {
    const { session, conn } = await connect();
    let ended: string | undefined = 'not yet';
    session.onEnd((reason) => (ended = reason));
    const first = session.request(HEADERS, Buffer.from('a'));
    const second = session.request(HEADERS, Buffer.from('b'));
    await conn.next(FRAME.HEADERS, 3000, (frame) => frame.streamId === 3);
    conn.goaway(1, 0, 'graceful');
    const refused = await rejection(second.response);
    assert.equal(refused.processed, false);
    assert.match(refused.message, /going away \(NO_ERROR: graceful\)/);
    assert.equal(session.closed, true, 'no new streams after GOAWAY');
    const late = await rejection(session.request(HEADERS, Buffer.from('c')).response);
    assert.equal(late.processed, false);
    assert.equal(ended, 'not yet', 'the session lives while stream 1 is in flight');
    conn.answer(1, Buffer.from('done'));
    const response = await first.response;
    assert.ok(response.body.subarray(5).equals(Buffer.from('done')));
    assert.match(String(ended), /going away/);
  });

  it('RST_STREAM: REFUSED_STREAM is not processed (retriable), other codes may have been', async () => {
    const { session, conn } = await connect();
    const refused = session.request(HEADERS, Buffer.from('a'));
    const internal = session.request(HEADERS, Buffer.from('b'));
    await conn.next(FRAME.HEADERS, 3000, (frame) => frame.streamId === 3);
    conn.send(FRAME.RST_STREAM, 0, 1, u32(7));
    conn.send(FRAME.RST_STREAM, 0, 3, u32(2));
    const a = await rejection(refused.response);
    assert.equal(a.processed, false);
    assert.match(a.message, /REFUSED_STREAM/);
    const b = await rejection(internal.response);
    assert.equal(b.processed, true);
    assert.match(b.message, /INTERNAL_ERROR/);
    // The connection serves on.
    const next = session.request(HEADERS, Buffer.from('c'));
    await conn.next(FRAME.HEADERS, 3000, (frame) => frame.streamId === 5);
    conn.answer(5, Buffer.from('ok'));
    await next.response;
  });

  it('a REFUSED_STREAM call is retried by the channel, and answered', async () => {
    const channel = new EtcdChannel({ endpoints: [peer.url], timeoutMs: 3000 });
    try {
      const call = channel.call('/etcdserverpb.KV/Range', Buffer.from('request'));
      const conn = await peer.accept();
      conn.settings();
      await conn.next(FRAME.HEADERS, 3000, (frame) => frame.streamId === 1);
      conn.send(FRAME.RST_STREAM, 0, 1, u32(7));
      await conn.next(FRAME.HEADERS, 3000, (frame) => frame.streamId === 3);
      const request = await conn.next(FRAME.DATA, 3000, (frame) => frame.streamId === 3);
      assert.ok(request.payload.equals(grpcMessage(Buffer.from('request'))));
      conn.answer(3, Buffer.from('answer'));
      assert.equal((await call).toString(), 'answer');
    } finally {
      channel.close();
    }
  });

  it('after a member failed, a write that another member holds unanswered is tried again within seconds', async () => {
    const second = await ScriptedPeer.listen();
    const channel = new EtcdChannel({ endpoints: [peer.url, second.url], timeoutMs: 10_000 });
    try {
      const started = Date.now();
      const call = channel.call('/etcdserverpb.KV/Txn', Buffer.from('write'), { retry: 'safe', retryStale: true });
      // The first member takes the call and dies with it.
      const first = await peer.accept();
      first.settings();
      await first.next(FRAME.HEADERS);
      first.destroy();
      // The second takes the retry and holds it, as a follower whose leader just died.
      const holding = await second.accept();
      holding.settings();
      await holding.next(FRAME.HEADERS);
      // Abandoned after 1.5-2 s (RST_STREAM CANCEL) and tried again; by then the member knows its
      // new leader and answers.
      const reset = await holding.next(FRAME.RST_STREAM, 4000);
      assert.equal(reset.payload.readUInt32BE(0), 8);
      const headers = await holding.next(FRAME.HEADERS, 3000, (frame) => frame.streamId > reset.streamId);
      holding.answer(headers.streamId, Buffer.from('applied'));
      assert.equal((await call).toString(), 'applied');
      assert.ok(Date.now() - started < 4000, `answered after ${Date.now() - started} ms`);
    } finally {
      channel.close();
      await second.close();
    }
  });

  it("follows the peer's INITIAL_WINDOW_SIZE, changed mid-stream, and WINDOW_UPDATEs", async () => {
    const { session, conn } = await connect([[SETTINGS_INITIAL_WINDOW_SIZE, 10]]);
    await conn.next(FRAME.SETTINGS, 3000, (frame) => (frame.flags & FLAG.ACK) !== 0);
    const body = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz');
    const call = session.request(HEADERS, body);
    const first = await conn.next(FRAME.DATA);
    assert.equal(first.payload.toString(), '0123456789', 'at most the 10-byte window');
    // Raised by 6 for streams already open: 6 more bytes.
    conn.settings([[SETTINGS_INITIAL_WINDOW_SIZE, 16]]);
    const second = await conn.next(FRAME.DATA);
    assert.equal(second.payload.toString(), 'abcdef');
    // Lowered by 12: the stream's window is -12, and an update of 15 leaves it 3.
    conn.settings([[SETTINGS_INITIAL_WINDOW_SIZE, 4]]);
    await conn.next(FRAME.SETTINGS, 3000, (frame) => (frame.flags & FLAG.ACK) !== 0);
    conn.send(FRAME.WINDOW_UPDATE, 0, 1, u32(15));
    const third = await conn.next(FRAME.DATA);
    assert.equal(third.payload.toString(), 'ghi');
    conn.send(FRAME.WINDOW_UPDATE, 0, 1, u32(100));
    const last = await conn.next(FRAME.DATA);
    assert.equal(last.payload.toString(), 'jklmnopqrstuvwxyz');
    assert.equal(last.flags & FLAG.END_STREAM, FLAG.END_STREAM);
    conn.answer(1, Buffer.alloc(0));
    await call.response;
  });

  it('keeps to MAX_CONCURRENT_STREAMS, queueing the rest in order', async () => {
    const { session, conn } = await connect([[SETTINGS_MAX_CONCURRENT_STREAMS, 1]]);
    await conn.next(FRAME.SETTINGS, 3000, (frame) => (frame.flags & FLAG.ACK) !== 0);
    const calls = ['a', 'b', 'c'].map((body) => session.request(HEADERS, Buffer.from(body)));
    const order: string[] = [];
    calls.forEach((call, i) => void call.response.then(() => order.push('abc'[i]!)));
    for (const [i, streamId] of [1, 3, 5].entries()) {
      const headers = await conn.next(FRAME.HEADERS);
      assert.equal(headers.streamId, streamId);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(conn.sent(FRAME.HEADERS).length, i + 1, 'one stream open at a time');
      conn.answer(streamId, Buffer.from('ok'));
      await calls[i]!.response;
    }
    assert.deepEqual(order, ['a', 'b', 'c']);
  });

  it('answers PINGs, and sends its own when a request waits on a silent peer; no answer ends the session', async () => {
    const keepalive = { stallMs: 250, idleMs: 5000, timeoutMs: 500, minIntervalMs: 5000 };
    const { session, conn } = await connect([], { keepalive });
    conn.send(FRAME.PING, 0, 0, Buffer.from('12345678'));
    const ack = await conn.next(FRAME.PING, 3000, (frame) => (frame.flags & FLAG.ACK) !== 0);
    assert.equal(ack.payload.toString(), '12345678');
    // Answered PINGs keep it alive while the request waits.
    const waiting = session.request(HEADERS, Buffer.from('a'));
    const ping = await conn.next(FRAME.PING, 3000, (frame) => !(frame.flags & FLAG.ACK));
    conn.send(FRAME.PING, FLAG.ACK, 0, ping.payload);
    // With no data from the peer since, the next PING waits out minIntervalMs: the peer stays
    // silent and the session lives past stall + timeout.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    assert.equal(session.closed, false);
    assert.equal(conn.sent(FRAME.PING).filter((frame) => !(frame.flags & FLAG.ACK)).length, 1, 'no PING within the min interval');
    conn.answer(1, Buffer.from('late'));
    await waiting.response;
    // Now a request on a peer that answers nothing at all, PINGs included.
    const started = Date.now();
    const stuck = session.request(HEADERS, Buffer.from('b'));
    const failure = await rejection(stuck.response);
    assert.match(failure.message, /did not answer a PING within 500 ms/);
    assert.equal(failure.processed, true, 'the peer may have acted on it');
    assert.ok(Date.now() - started < 2000, `failed after ${Date.now() - started} ms`);
  });

  it('a peer that accepts the connection and never speaks: requests fail as not processed at the connect timeout', async () => {
    const session = new H2Session(new URL(peer.url), { windowBytes: 1 << 20, connectTimeoutMs: 500 });
    sessions.push(session);
    const started = Date.now();
    const call = session.request(HEADERS, Buffer.from('a'));
    await peer.accept();
    const failure = await rejection(call.response);
    assert.equal(failure.processed, false);
    assert.match(failure.message, /no HTTP\/2 answer .* within 500 ms/);
    assert.ok(Date.now() - started < 1500);
  });

  it('reads padded DATA and HEADERS, and header blocks continued in CONTINUATION frames', async () => {
    const { session, conn } = await connect();
    const call = session.request(HEADERS, Buffer.from('a'));
    await conn.next(FRAME.HEADERS);
    const block = encodeHeaders([[':status', '200'], ['content-type', 'application/grpc'], ['x-long', 'v'.repeat(40)]]);
    // HEADERS: padded (pad length 3), the first 10 bytes of the block, no END_HEADERS.
    conn.send(FRAME.HEADERS, FLAG.PADDED, 1, Buffer.concat([Buffer.from([3]), block.subarray(0, 10), Buffer.alloc(3)]));
    conn.send(FRAME.CONTINUATION, 0, 1, block.subarray(10, 20));
    conn.send(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, block.subarray(20));
    const message = grpcMessage(Buffer.from('padded body'));
    conn.send(FRAME.DATA, FLAG.PADDED, 1, Buffer.concat([Buffer.from([5]), message.subarray(0, 4), Buffer.alloc(5)]));
    conn.send(FRAME.DATA, 0, 1, message.subarray(4));
    const trailers = encodeHeaders([['grpc-status', '0'], ['grpc-message', '']]);
    conn.send(FRAME.HEADERS, FLAG.END_STREAM, 1, trailers.subarray(0, 5));
    conn.send(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, trailers.subarray(5));
    const response = await call.response;
    assert.deepEqual(response.headers[2], ['x-long', 'v'.repeat(40)]);
    assert.deepEqual(response.trailers, [['grpc-status', '0'], ['grpc-message', '']]);
    assert.ok(response.body.equals(message));
  });

  it('a long-lived stream: messages as they come, writes, and no window given back while paused', async () => {
    const { session, conn } = await connect([], { windowBytes: 100 });
    const chunks: Buffer[] = [];
    let ended: unknown;
    const stream = session.openStream(HEADERS, { onData: (chunk) => chunks.push(chunk), onEnd: (result) => (ended = result) });
    stream.write(Buffer.from('first'));
    assert.equal((await conn.next(FRAME.DATA)).payload.toString(), 'first');
    stream.pause();
    conn.headers(1, [[':status', '200']]);
    conn.data(1, Buffer.alloc(60, 1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(chunks.length, 1);
    assert.equal(conn.sent(FRAME.WINDOW_UPDATE).filter((frame) => frame.streamId === 1).length, 0, 'paused: no stream window update');
    stream.resume();
    const update = await conn.next(FRAME.WINDOW_UPDATE, 3000, (frame) => frame.streamId === 1);
    assert.equal(update.payload.readUInt32BE(0), 60);
    stream.write(Buffer.from('second'));
    assert.equal((await conn.next(FRAME.DATA)).payload.toString(), 'second');
    conn.headers(1, [['grpc-status', '0']], true);
    const deadline = Date.now() + 5000;
    while (ended === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(ended, { headers: [[':status', '200']], trailers: [['grpc-status', '0']] });
  });

  const connectionErrors: Array<{ name: string; send: (conn: PeerConnection) => void; code: number; message: RegExp }> = [
    { name: 'a frame above the 16,384-byte maximum', send: (conn) => conn.send(FRAME.DATA, 0, 1, Buffer.alloc(16_385)), code: 6, message: /FRAME_SIZE_ERROR: a frame of 16385 bytes/ },
    { name: 'a PING of 7 bytes', send: (conn) => conn.send(FRAME.PING, 0, 0, Buffer.alloc(7)), code: 6, message: /FRAME_SIZE_ERROR: a PING frame of 7 bytes/ },
    { name: 'a SETTINGS of 5 bytes', send: (conn) => conn.send(FRAME.SETTINGS, 0, 0, Buffer.alloc(5)), code: 6, message: /FRAME_SIZE_ERROR/ },
    { name: 'a WINDOW_UPDATE of 3 bytes', send: (conn) => conn.send(FRAME.WINDOW_UPDATE, 0, 0, Buffer.alloc(3)), code: 6, message: /FRAME_SIZE_ERROR/ },
    { name: 'DATA on stream 0', send: (conn) => conn.send(FRAME.DATA, 0, 0, Buffer.from('x')), code: 1, message: /PROTOCOL_ERROR: a DATA frame on stream 0/ },
    { name: 'HEADERS on a stream never opened', send: (conn) => conn.headers(9, [[':status', '200']]), code: 1, message: /never opened/ },
    { name: 'a CONTINUATION outside a header block', send: (conn) => conn.send(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, Buffer.alloc(1)), code: 1, message: /CONTINUATION frame outside a header block/ },
    { name: 'a frame between HEADERS and its CONTINUATION', send: (conn) => { conn.send(FRAME.HEADERS, 0, 1, encodeHeaders([[':status', '200']])); conn.send(FRAME.PING, 0, 0, Buffer.alloc(8)); }, code: 1, message: /a frame inside a header block/ },
    { name: 'a PUSH_PROMISE', send: (conn) => conn.send(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, 1, Buffer.alloc(4)), code: 1, message: /PUSH_PROMISE/ },
    { name: 'padding longer than the frame', send: (conn) => conn.send(FRAME.DATA, FLAG.PADDED, 1, Buffer.from([9, 1, 2])), code: 1, message: /padding longer than the frame/ },
    { name: 'a SETTINGS_MAX_FRAME_SIZE below 16,384', send: (conn) => conn.settings([[SETTINGS_MAX_FRAME_SIZE, 100]]), code: 1, message: /SETTINGS_MAX_FRAME_SIZE of 100/ },
    { name: 'a header block HPACK cannot decode', send: (conn) => conn.send(FRAME.HEADERS, FLAG.END_HEADERS, 1, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f])), code: 9, message: /COMPRESSION_ERROR/ },
  ];
  for (const { name, send, code, message } of connectionErrors) {
    it(`a connection error: ${name} (GOAWAY ${code}, requests fail)`, async () => {
      const { session, conn } = await connect();
      const call = session.request(HEADERS, Buffer.from('a'));
      await conn.next(FRAME.HEADERS);
      send(conn);
      const failure = await rejection(call.response);
      assert.match(failure.message, message);
      assert.deepEqual(await goawayFrom(conn), [0, code]);
      assert.equal(session.closed, true);
      await conn.closed;
    });
  }

  it("a server whose first frame is not SETTINGS is not an HTTP/2 server: PROTOCOL_ERROR, the request not processed", async () => {
    const session = new H2Session(new URL(peer.url), { windowBytes: 1 << 20 });
    sessions.push(session);
    const call = session.request(HEADERS, Buffer.from('a'));
    const conn = await peer.accept();
    conn.raw(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
    const failure = await rejection(call.response);
    assert.equal(failure.processed, false);
    assert.match(failure.message, /PROTOCOL_ERROR: the server's first frame/);
  });
});
