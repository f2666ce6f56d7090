// The aescbc and aesgcm providers, byte for byte as upstream stores them, so that data written by
// either server is read by the other:
//   aesgcm: nonce (12 random bytes) | ciphertext | tag (16 bytes); the value's key is the
//           additional authenticated data, so a value copied to another key does not decrypt.
//   aescbc: IV (16 random bytes) | ciphertext of the value padded as PKCS#7; not authenticated.
// The AES variant (128, 192, 256) follows the key's length, as Go's aes.NewCipher.
import { createCipheriv, createDecipheriv, type CipherGCMTypes } from 'node:crypto';
import { randomBytesFromPool } from './random-pool.js';
import type { TransformedValue, ValueTransformer } from './transformer.js';

const GCM_NONCE_BYTES = 12;
const GCM_TAG_BYTES = 16;
const BLOCK_BYTES = 16;

/** The key lengths AES takes (bytes), as upstream's validation lists them. */
export const AES_KEY_LENGTHS: readonly number[] = [16, 24, 32];

function bitsOf(key: Buffer): 128 | 192 | 256 {
  switch (key.length) {
    case 16:
      return 128;
    case 24:
      return 192;
    case 32:
      return 256;
    default:
      throw new Error(`crypto/aes: invalid key size ${key.length}`);
  }
}

export class AesGcmTransformer implements ValueTransformer {
  private readonly algorithm: CipherGCMTypes;

  constructor(private readonly key: Buffer) {
    this.algorithm = `aes-${bitsOf(key)}-gcm`;
  }

  fromStorage(data: Buffer, context: Buffer): TransformedValue {
    if (data.length < GCM_NONCE_BYTES) throw new Error('the stored data was shorter than the required size');
    // Go's Open fails the same way on a value too short to hold its tag.
    if (data.length < GCM_NONCE_BYTES + GCM_TAG_BYTES) throw new Error('cipher: message authentication failed');
    const decipher = createDecipheriv(this.algorithm, this.key, data.subarray(0, GCM_NONCE_BYTES));
    decipher.setAAD(context);
    decipher.setAuthTag(data.subarray(data.length - GCM_TAG_BYTES));
    const body = decipher.update(data.subarray(GCM_NONCE_BYTES, data.length - GCM_TAG_BYTES));
    try {
      const tail = decipher.final();
      return { data: tail.length ? Buffer.concat([body, tail]) : body, stale: false };
    } catch {
      throw new Error('cipher: message authentication failed');
    }
  }

  toStorage(data: Buffer, context: Buffer): Buffer {
    const nonce = randomBytesFromPool(GCM_NONCE_BYTES);
    const cipher = createCipheriv(this.algorithm, this.key, nonce);
    cipher.setAAD(context);
    const body = cipher.update(data);
    const tail = cipher.final();
    return Buffer.concat([nonce, body, tail, cipher.getAuthTag()]);
  }
}

export class AesCbcTransformer implements ValueTransformer {
  private readonly algorithm: string;

  constructor(private readonly key: Buffer) {
    this.algorithm = `aes-${bitsOf(key)}-cbc`;
  }

  fromStorage(data: Buffer): TransformedValue {
    if (data.length < BLOCK_BYTES) throw new Error('the stored data was shorter than the required size');
    const body = data.subarray(BLOCK_BYTES);
    if (body.length % BLOCK_BYTES !== 0) throw new Error('the stored data is not a multiple of the block size');
    const decipher = createDecipheriv(this.algorithm, this.key, data.subarray(0, BLOCK_BYTES));
    // The padding is checked here rather than by OpenSSL, to fail with upstream's words.
    decipher.setAutoPadding(false);
    const plain = Buffer.concat([decipher.update(body), decipher.final()]);
    const padding = plain.length > 0 ? plain[plain.length - 1]! : 0;
    if (padding === 0 || padding > plain.length) throw new Error('invalid PKCS7 data (empty or not padded)');
    for (let i = plain.length - padding; i < plain.length; i++) {
      if (plain[i] !== padding) throw new Error('invalid padding on input');
    }
    return { data: plain.subarray(0, plain.length - padding), stale: false };
  }

  toStorage(data: Buffer): Buffer {
    const iv = randomBytesFromPool(BLOCK_BYTES);
    const cipher = createCipheriv(this.algorithm, this.key, iv);
    return Buffer.concat([iv, cipher.update(data), cipher.final()]);
  }
}
