// Value transformers: what the store does to an object's bytes on their way to and from the
// backend, per resource (encryption at rest). The shapes follow upstream's storage/value package:
// a prefix on the stored bytes names how they were written, so that several ways can be read at
// once while one writes (key rotation).

/** A value as read back: its bytes, and whether it should be written again in the current form. */
export interface TransformedValue {
  data: Buffer;
  /**
   * Read with something other than the writing transformer (an older key or provider): an update
   * must store it again even when nothing else changed, so that rewriting every object moves them
   * all to the writing key.
   */
  stale: boolean;
}

/**
 * Turns stored bytes into the encoded object and back. `context` is the data the transformation is
 * bound to (the value's full key): an authenticating cipher refuses a value moved to another key.
 * Failures are thrown as errors whose message says what failed, never answered with other bytes.
 */
export interface ValueTransformer {
  fromStorage(data: Buffer, context: Buffer): TransformedValue;
  toStorage(data: Buffer, context: Buffer): Buffer;
}

/** How each transformation went, for apiserver_storage_transformation_* (upstream's labels). */
export interface TransformationObserver {
  /**
   * @param type `from_storage` or `to_storage`
   * @param prefix the prefix of the transformer used (`identity` when read without one, `unknown`
   *   when no prefix matched)
   * @param seconds how long it took
   * @param error what failed, or undefined
   */
  observe(type: 'from_storage' | 'to_storage', prefix: string, seconds: number, error: unknown): void;
}

/** Stored bytes that start with this were written by an encrypting transformer. */
export const ENCRYPTED_PREFIX = 'k8s:enc:';
