// The secretbox provider: NaCl's secretbox (XSalsa20 and Poly1305) as upstream stores it,
// nonce (24 random bytes) | Poly1305 tag (16 bytes) | ciphertext. Not bound to the value's key.
//
// Node's crypto has no XSalsa20, so the cipher is @noble/ciphers' (audited, no dependencies, kept
// up); secretbox.test.ts checks it against NaCl's published secretbox vector.
import { randomBytesFromPool } from './random-pool.js';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import type { TransformedValue, ValueTransformer } from './transformer.js';

const NONCE_BYTES = 24;
const TAG_BYTES = 16;

/** The one key length secretbox takes (bytes). */
export const SECRETBOX_KEY_LENGTHS: readonly number[] = [32];

export class SecretboxTransformer implements ValueTransformer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error(`expected key size 32 for secretbox provider, got ${key.length}`);
  }

  fromStorage(data: Buffer): TransformedValue {
    if (data.length < NONCE_BYTES + TAG_BYTES) throw new Error('the stored data was shorter than the required size');
    let plain: Uint8Array;
    try {
      plain = xsalsa20poly1305(this.key, data.subarray(0, NONCE_BYTES)).decrypt(data.subarray(NONCE_BYTES));
    } catch {
      // Upstream's words for a box that does not open.
      throw new Error('output array was not large enough for encryption');
    }
    return { data: Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength), stale: false };
  }

  toStorage(data: Buffer): Buffer {
    const nonce = randomBytesFromPool(NONCE_BYTES);
    const sealed = xsalsa20poly1305(this.key, nonce).encrypt(data);
    return Buffer.concat([nonce, sealed]);
  }
}
