// The identity provider: values stored as they are. Reading refuses encrypted bytes, so that with
// identity listed first (to migrate away from encryption) an encrypted value falls through to the
// provider that can read it, and never reaches a decoder as if it were JSON.
import { ENCRYPTED_PREFIX, type TransformedValue, type ValueTransformer } from './transformer.js';

const encrypted = Buffer.from(ENCRYPTED_PREFIX);

export const identityTransformer: ValueTransformer = {
  fromStorage(data: Buffer): TransformedValue {
    if (startsWith(data, encrypted)) throw new Error('identity transformer tried to read encrypted data');
    return { data, stale: false };
  },
  toStorage: (data: Buffer): Buffer => data,
};

/** Whether `data` begins with `prefix`, without copying. */
export function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}
