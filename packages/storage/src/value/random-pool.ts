// Random bytes for nonces and IVs, taken from a block of the system's CSPRNG filled a few kilobytes
// at a time (as node's own randomUUID does): crypto.randomBytes runs a job per call, which for a
// 12-byte nonce on every Secret written cost more than the encryption itself (bench/secrets'
// replica profile). Every byte is handed out once, never again.
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;

const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let offset = POOL_BYTES;

/** Copies `length` fresh random bytes into `target` at `at`. */
export function fillRandom(target: Buffer, at: number, length: number): void {
  if (length > POOL_BYTES) {
    randomFillSync(target, at, length);
    return;
  }
  if (offset + length > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  pool.copy(target, at, offset, offset + length);
  // Spent: what was handed out is not left where a later caller could see it again.
  pool.fill(0, offset, offset + length);
  offset += length;
}

/** `length` fresh random bytes. */
export function randomBytesFromPool(length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  fillRandom(bytes, 0, length);
  return bytes;
}
