import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeLeaseGrantResponse, decodeRangeResponse, decodeTxnResponse, encodeLeaseGrantRequest, encodeRangeRequest, encodeTxnRequest } from './wire.js';

const hex = (buffer: Buffer): string => buffer.toString('hex');
const bytes = (text: string): Buffer => Buffer.from(text);

describe('etcd wire format: requests', () => {
  const cases: { name: string; encoded: Buffer; expected: string }[] = [
    // key (1) only: proto3 leaves zero fields out.
    { name: 'range of one key', encoded: encodeRangeRequest({ key: bytes('/a') }), expected: '0a022f61' },
    {
      name: 'range with end, limit 37, revision 300, count only',
      encoded: encodeRangeRequest({ key: bytes('/a'), rangeEnd: bytes('/b'), limit: 37, revision: 300, countOnly: true }),
      // 300 = 0xac 0x02 as a varint.
      expected: '0a022f611202' + '2f62' + '1825' + '20ac02' + '4801',
    },
    {
      name: 'a revision above 2^32 keeps every bit',
      encoded: encodeRangeRequest({ key: bytes('k'), revision: 2 ** 40 + 5 }),
      expected: '0a016b' + '20858080808020',
    },
    {
      // Create-if-absent compares mod_revision with 0: the oneof field is written although it is 0.
      name: 'txn: create if absent, else read',
      encoded: encodeTxnRequest({
        compare: [{ key: bytes('k'), result: 'Equal', modRevision: 0 }],
        success: [{ put: { key: bytes('k'), value: bytes('v') } }],
        failure: [{ range: { key: bytes('k') } }],
      }),
      // compare (1): target Mod (2:2), key (3), mod_revision (6:0); success (2) put (2); failure (3) range (1).
      expected: '0a07' + '1002' + '1a016b' + '3000' + '1208' + '1206' + '0a016b' + '1201' + '76' + '1a05' + '0a03' + '0a016b',
    },
    {
      // Lengths of two-byte varints at every level: 200 bytes of value, 206 of put, 209 of op.
      name: 'txn: a put whose value needs longer lengths at each level',
      encoded: encodeTxnRequest({ compare: [], success: [{ put: { key: bytes('k'), value: Buffer.alloc(200, 0xaa) } }], failure: [] }),
      expected: '12d101' + '12ce01' + '0a016b' + '12c801' + 'aa'.repeat(200),
    },
    {
      name: 'txn: delete at a mod revision with the previous value',
      encoded: encodeTxnRequest({
        compare: [{ key: bytes('k'), result: 'Equal', modRevision: 7 }],
        success: [{ deleteRange: { key: bytes('k'), prevKv: true } }],
        failure: [],
      }),
      expected: '0a07' + '1002' + '1a016b' + '3007' + '1207' + '1a05' + '0a016b' + '1801',
    },
    {
      // An etcd lease ID uses all 63 bits: 7587862072587063812 as a 9-byte varint in field 3.
      name: 'txn: a put attached to a lease',
      encoded: encodeTxnRequest({ compare: [], success: [{ put: { key: bytes('k'), value: bytes('v'), lease: 7587862072587063812n } }], failure: [] }),
      expected: '1212' + '1210' + '0a016b' + '120176' + '18' + '84a4d889a58be0a669',
    },
    { name: 'a lease grant of an hour and a minute', encoded: encodeLeaseGrantRequest(3660), expected: '08cc1c' },
  ];
  for (const { name, encoded, expected } of cases) {
    it(name, () => assert.equal(hex(encoded), expected));
  }
});

describe('etcd wire format: responses (bytes as etcd 3.4 sent them)', () => {
  // Header: cluster_id and member_id are full 64-bit values, revision 3, raft_term 2.
  const header = '0a1a088ef980c6d9a9d9c2ce0110e1d2b4839bc6c4abbe011803' + '2002';
  const keyValue = '0a022f611002180220012a077b2278223a317d'; // /a, create 2, mod 2, version 1, {"x":1}

  it('a put that succeeded', () => {
    const response = decodeTxnResponse(Buffer.from(header + '1001' + '1a0612040a021802', 'hex'));
    assert.deepEqual(response, { revision: 3, succeeded: true, responses: [{ put: {} }] });
  });

  it('a delete with its previous value', () => {
    const response = decodeTxnResponse(Buffer.from(header + '1001' + '1a1d1a1b0a02180310011a13' + keyValue, 'hex'));
    assert.equal(response.revision, 3);
    assert.equal(response.succeeded, true);
    const op = response.responses[0]!;
    assert.ok('deleteRange' in op);
    assert.equal(op.deleteRange.deleted, 1);
    const [previous] = op.deleteRange.prevKvs;
    assert.equal(previous!.key.toString(), '/a');
    assert.equal(previous!.value.toString(), '{"x":1}');
    assert.equal(previous!.modRevision, 2);
    assert.equal(previous!.createRevision, 2);
  });

  it('a failed compare with the current value, and a range with count and more', () => {
    const failed = decodeTxnResponse(Buffer.from(header + '1a1b' + '0a19' + '0a021803' + '1213' + keyValue, 'hex'));
    assert.equal(failed.succeeded, false);
    const op = failed.responses[0]!;
    assert.ok('range' in op);
    assert.equal(op.range.kvs[0]!.value.toString(), '{"x":1}');
    const range = decodeRangeResponse(Buffer.from(header + '1213' + keyValue + '1801' + '20e807', 'hex'));
    assert.deepEqual([range.revision, range.kvs.length, range.more, range.count], [3, 1, true, 1000]);
  });

  it('a lease grant: its 63-bit ID exact, its TTL, no error', () => {
    const response = decodeLeaseGrantResponse(Buffer.from(header + '10' + '84a4d889a58be0a669' + '18cc1c', 'hex'));
    assert.deepEqual(response, { id: 7587862072587063812n, ttl: 3660, error: '' });
  });

  it('fields it does not know (of every wire type) are skipped', () => {
    // field 15 varint, field 14 fixed64, field 13 bytes, field 12 fixed32, then count 5.
    const unknown = '7801' + '710102030405060708' + '6a03616263' + '6501020304';
    assert.equal(decodeRangeResponse(Buffer.from(unknown + '2005', 'hex')).count, 5);
  });

  it('a truncated message is an error, not a guess', () => {
    assert.throws(() => decodeRangeResponse(Buffer.from('1213' + keyValue.slice(0, 10), 'hex')), /truncated/);
    assert.throws(() => decodeRangeResponse(Buffer.from('2080', 'hex')), /truncated varint/);
  });
});
