import { requestTooLarge } from './errors.js';

// etcd's limit on the size of one write (--max-request-bytes, 1.5 MiB by default), counted as etcd
// counts it, so that the embedded backend refuses what a default etcd refuses.
//
// etcd checks the whole proposal it would put in its raft log: the request (here the transaction
// EtcdKV sends for a compare-and-put) wrapped in an InternalRaftRequest with a header carrying a
// request ID (v3_server.go, processInternalRaftRequestOnce: len(data) > MaxRequestBytes). The key
// appears three times in that transaction (compare, put, and the read on failure), so a value a few
// hundred bytes under the limit is refused too. Larger requests (over the limit plus 512 KiB) are
// refused earlier by etcd's gRPC server ("received message larger than max"): still too large.

/** etcd's default --max-request-bytes (embed.DefaultMaxRequestBytes). */
export const ETCD_DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/**
 * The request ID etcd puts in the header: the member ID's low 16 bits above 48 bits of time and
 * count, a varint of 7 to 10 bytes as the member ID falls. Counted at its largest, so that what the
 * embedded backend takes every default etcd takes.
 */
const REQUEST_ID_BYTES = 10;

function varintSize(value: number): number {
  let size = 1;
  while (value > 0x7f) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}

/** A length-delimited field of `length` bytes with a one-byte tag. */
const delimited = (length: number): number => 1 + varintSize(length) + length;

/**
 * The bytes etcd counts for a compare-and-put of a value of `valueBytes` at a key of `keyBytes`
 * (both UTF-8), expecting mod revision `expectedModRevision` (0: the key must be absent).
 */
export function compareAndPutRequestBytes(keyBytes: number, valueBytes: number, expectedModRevision: number): number {
  // Compare: target MOD (2 bytes), the key, mod_revision (in a oneof: written even when 0).
  const compare = 2 + delimited(keyBytes) + 1 + varintSize(expectedModRevision);
  const put = delimited(keyBytes) + delimited(valueBytes);
  const range = delimited(keyBytes);
  // TxnRequest: compare (field 1), success (2): RequestOp{request_put}, failure (3): RequestOp{request_range}.
  const txn = delimited(compare) + delimited(delimited(put)) + delimited(delimited(range));
  // InternalRaftRequest: header (field 100, a two-byte tag) holding the ID, and txn (field 6).
  const header = 2 + varintSize(1 + REQUEST_ID_BYTES) + 1 + REQUEST_ID_BYTES;
  return header + delimited(txn);
}

/**
 * Refuses (RequestTooLarge) a compare-and-put that a default etcd would refuse for its size, so that
 * the embedded backends take exactly what etcd takes.
 */
export function checkCompareAndPutSize(key: string, value: string | Buffer, expectedModRevision: number): void {
  const limit = ETCD_DEFAULT_MAX_REQUEST_BYTES;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most writes are sized without being scanned.
  if (compareAndPutRequestBytes(3 * key.length, 3 * value.length, expectedModRevision) <= limit) return;
  const bytes = compareAndPutRequestBytes(Buffer.byteLength(key), Buffer.byteLength(value), expectedModRevision);
  if (bytes > limit) throw requestTooLarge(key, `request is too large: the write takes ${bytes} bytes as etcd counts them, over its limit of ${limit}`);
}
