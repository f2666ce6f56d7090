import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { startEtcd, type EtcdProcess } from '../testing/etcd-process.js';
import { freePort } from '../testing/free-port.js';
import { EtcdChannel as UnaryChannel, GrpcError, GrpcUnavailableError } from './channel.js';
import { decodeRangeResponse, decodeTxnResponse, encodeCompactionRequest, encodeRangeRequest, encodeTxnRequest } from './wire.js';

const RANGE = '/etcdserverpb.KV/Range';
const TXN = '/etcdserverpb.KV/Txn';

describe('the etcd channel: unary calls', () => {
  let etcd: EtcdProcess;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.stop();
  });

  it('writes and reads through etcd', async () => {
    const channel = new UnaryChannel({ endpoints: [etcd.endpoint], timeoutMs: 5000 });
    try {
      const key = Buffer.from('/unary/a');
      const put = decodeTxnResponse(
        await channel.call(TXN, encodeTxnRequest({ compare: [{ key, result: 'Equal', modRevision: 0 }], success: [{ put: { key, value: Buffer.from('one') } }], failure: [] })),
      );
      assert.equal(put.succeeded, true);
      const again = decodeTxnResponse(
        await channel.call(TXN, encodeTxnRequest({ compare: [{ key, result: 'Equal', modRevision: 0 }], success: [{ put: { key, value: Buffer.from('two') } }], failure: [{ range: { key } }] })),
      );
      assert.equal(again.succeeded, false, 'create-if-absent compares mod_revision with 0');
      const range = decodeRangeResponse(await channel.call(RANGE, encodeRangeRequest({ key })));
      assert.equal(range.kvs[0]!.value.toString(), 'one');
      assert.equal(range.kvs[0]!.modRevision, put.revision);
      // 64 calls at once share the session.
      const all = await Promise.all(Array.from({ length: 64 }, () => channel.call(RANGE, encodeRangeRequest({ key }))));
      assert.ok(all.every((body) => decodeRangeResponse(body).kvs.length === 1));
    } finally {
      channel.close();
    }
  });

  it("etcd's errors arrive as GrpcError with its message (a compacted revision)", async () => {
    const channel = new UnaryChannel({ endpoints: [etcd.endpoint], timeoutMs: 5000 });
    try {
      const key = Buffer.from('/unary/compacted');
      for (let i = 0; i < 3; i++) await channel.call(TXN, encodeTxnRequest({ compare: [], success: [{ put: { key, value: Buffer.from(String(i)) } }], failure: [] }));
      const current = decodeRangeResponse(await channel.call(RANGE, encodeRangeRequest({ key, countOnly: true }))).revision;
      await channel.call('/etcdserverpb.KV/Compact', encodeCompactionRequest(current));
      await assert.rejects(channel.call(RANGE, encodeRangeRequest({ key, revision: current - 2 })), (error: unknown) => {
        assert.ok(error instanceof GrpcError);
        assert.equal(error.code, 11); // OUT_OF_RANGE
        assert.match(error.message, /required revision has been compacted/);
        return true;
      });
    } finally {
      channel.close();
    }
  });

  it('an endpoint that refuses connections is passed over for the next one', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const channel = new UnaryChannel({ endpoints: [dead, etcd.endpoint], timeoutMs: 5000 });
    try {
      const range = decodeRangeResponse(await channel.call(RANGE, encodeRangeRequest({ key: Buffer.from('/unary/none') })));
      assert.equal(range.kvs.length, 0);
    } finally {
      channel.close();
    }
    const alone = new UnaryChannel({ endpoints: [dead], timeoutMs: 5000 });
    try {
      await assert.rejects(alone.call(RANGE, encodeRangeRequest({ key: Buffer.from('/x') })), GrpcUnavailableError);
    } finally {
      alone.close();
    }
  });

  it('a session is replaced after its share of streams, the calls in flight unharmed', async () => {
    const channel = new UnaryChannel({ endpoints: [etcd.endpoint], timeoutMs: 5000, maxStreamsPerSession: 3 });
    const sessions = new Set<unknown>();
    const current = (channel as unknown as { currentSession(): unknown }).currentSession.bind(channel);
    (channel as unknown as { currentSession(): unknown }).currentSession = () => {
      const session = current();
      sessions.add(session);
      return session;
    };
    try {
      const bodies = await Promise.all(Array.from({ length: 10 }, () => channel.call(RANGE, encodeRangeRequest({ key: Buffer.from('/unary/none') }))));
      assert.equal(bodies.length, 10);
      assert.ok(sessions.size >= 4, `${sessions.size} sessions for 10 calls of at most 3 each`);
    } finally {
      channel.close();
    }
  });

  it('bodies beyond the flow-control windows: values of 1.4 MB, and a range of 45 MB', async () => {
    const channel = new UnaryChannel({ endpoints: [etcd.endpoint], timeoutMs: 30_000 });
    try {
      // etcd's windows are 64 KiB until it raises them, its frames at most 16 KiB, and this
      // client's receive window 32 MiB: each direction has to wait for window updates.
      const values = Array.from({ length: 32 }, (_, i) => Buffer.alloc(1_400_000, 97 + (i % 26)));
      for (const [i, value] of values.entries()) {
        const key = Buffer.from(`/unary/big/${String(i).padStart(2, '0')}`);
        await channel.call(TXN, encodeTxnRequest({ compare: [], success: [{ put: { key, value } }], failure: [] }));
      }
      const range = decodeRangeResponse(
        await channel.call(RANGE, encodeRangeRequest({ key: Buffer.from('/unary/big/'), rangeEnd: Buffer.from('/unary/big0') })),
      );
      assert.equal(range.kvs.length, values.length);
      range.kvs.forEach((kv, i) => assert.ok(kv.value.equals(values[i]!), `value ${i}`));
      // The session still serves small calls after all that.
      const again = await Promise.all(Array.from({ length: 8 }, () => channel.call(RANGE, encodeRangeRequest({ key: Buffer.from('/unary/big/00') }))));
      assert.ok(again.every((body) => decodeRangeResponse(body).kvs[0]!.value.equals(values[0]!)));
    } finally {
      channel.close();
    }
  });

  it('a server going away before taking the call: the call is tried on the next endpoint', async () => {
    // Answers every session at once with GOAWAY, last stream 0: no call was processed.
    const leaving: Http2Server = createServer();
    leaving.on('session', (session) => session.goaway(0, 0));
    await new Promise<void>((resolve) => leaving.listen(0, '127.0.0.1', resolve));
    const channel = new UnaryChannel({ endpoints: [`http://127.0.0.1:${(leaving.address() as AddressInfo).port}`, etcd.endpoint], timeoutMs: 5000 });
    try {
      const range = decodeRangeResponse(await channel.call(RANGE, encodeRangeRequest({ key: Buffer.from('/unary/none') })));
      assert.equal(range.kvs.length, 0);
    } finally {
      channel.close();
      leaving.close();
    }
  });

  it('a call that gets no answer fails at its deadline', async () => {
    const silent: Http2Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const channel = new UnaryChannel({ endpoints: [`http://127.0.0.1:${(silent.address() as AddressInfo).port}`], timeoutMs: 300 });
    try {
      const started = Date.now();
      await assert.rejects(channel.call(RANGE, encodeRangeRequest({ key: Buffer.from('/x') })), /did not answer .* within 300 ms/);
      assert.ok(Date.now() - started < 2000);
    } finally {
      channel.close();
      silent.close();
    }
  });
});
