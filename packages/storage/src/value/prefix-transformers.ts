// A list of transformers told apart by the prefix they put before what they store: the first
// writes, any reads what starts with its prefix (upstream's prefixTransformers). Providers are one
// such list ("k8s:enc:aesgcm:v1:", ..., identity's empty prefix) and each provider's keys another
// ("key1:", "key2:"), so a stored value reads as k8s:enc:<provider>:v1:<key name>:<ciphertext>.
import { performance } from 'node:perf_hooks';
import { startsWith } from './identity.js';
import type { TransformationObserver, TransformedValue, ValueTransformer } from './transformer.js';

export interface PrefixedTransformer {
  prefix: string;
  transformer: ValueTransformer;
  /** What a failure is attributed to, such as `provider aesgcm` or `key "key1"`. */
  name: string;
}

interface Entry extends PrefixedTransformer {
  bytes: Buffer;
}

export class PrefixTransformers implements ValueTransformer {
  private readonly entries: Entry[];

  /**
   * @param noMatch the error when no prefix matches (upstream's words for the level)
   */
  constructor(
    transformers: readonly PrefixedTransformer[],
    private readonly noMatch: string,
    private readonly observer?: TransformationObserver,
  ) {
    if (transformers.length === 0) throw new Error('a prefix transformer needs at least one transformer');
    this.entries = transformers.map((entry) => ({ ...entry, bytes: Buffer.from(entry.prefix) }));
  }

  fromStorage(data: Buffer, context: Buffer): TransformedValue {
    const start = performance.now();
    const errors: Error[] = [];
    for (let i = 0; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (!startsWith(data, entry.bytes)) continue;
      let result: TransformedValue;
      try {
        result = entry.transformer.fromStorage(data.subarray(entry.bytes.length), context);
      } catch (error) {
        // Identity's empty prefix matches everything: encrypted data is for a later provider.
        if (entry.bytes.length === 0) continue;
        this.observe('from_storage', entry.prefix, start, error);
        // Two providers may share a prefix (the same provider with other keys, being rotated to
        // and away from): a failure is not the answer while a later one may read it.
        errors.push(new Error(`${entry.name}: ${messageOf(error)}`, { cause: error }));
        continue;
      }
      this.observe('from_storage', entry.bytes.length === 0 ? 'identity' : entry.prefix, start, undefined);
      // Read by any but the writing transformer: due to be written again.
      return i === 0 ? result : { data: result.data, stale: true };
    }
    if (errors.length === 1) throw errors[0]!;
    if (errors.length > 1) throw new Error(`[${errors.map((error) => error.message).join(', ')}]`);
    const failure = new Error(this.noMatch);
    this.observe('from_storage', 'unknown', start, failure);
    throw failure;
  }

  toStorage(data: Buffer, context: Buffer): Buffer {
    const start = performance.now();
    const first = this.entries[0]!;
    let result: Buffer;
    try {
      result = first.transformer.toStorage(data, context);
    } catch (error) {
      this.observe('to_storage', first.prefix, start, error);
      throw new Error(`${first.name}: ${messageOf(error)}`, { cause: error });
    }
    this.observe('to_storage', first.prefix, start, undefined);
    return first.bytes.length === 0 ? result : Buffer.concat([first.bytes, result]);
  }

  private observe(type: 'from_storage' | 'to_storage', prefix: string, start: number, error: unknown): void {
    this.observer?.observe(type, prefix, (performance.now() - start) / 1000, error);
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
