// Between a kind's stored objects and the objects one of its versions serves, where the two differ.
// An unstructured kind's are stored in the storage version and served in each version through its
// converter (conversion.ts: None rewrites apiVersion only), with the schema's pruning and defaults
// applied on the way out, as upstream's storage decoding for custom resources applies them. A kind
// stored as another (storedAs: events.{domain}/v1 Event over core v1 Events) is converted both ways
// by the pair's typed conversion. Other typed kinds need none of this: their stored form is served
// as is. Every conversion takes a batch and is awaited: a list's page, a watch's run, a write's object.
import { deepCopy } from '@plat/merge';
import type { KubeObject, StoredKind } from './definition.js';
import type { ResolvedResource } from './resolved.js';
import { noneConverter, type Converter } from './conversion.js';

export interface StoredForm<T extends KubeObject> {
  /**
   * Stored objects as this version serves them (kind and apiVersion set), in order. The stored
   * objects are not changed (they may be a watch cache's, shared), nor may what comes back be: each
   * stored object is served as one object, made once, and the ones not made yet are converted in
   * one call.
   */
  served(stored: readonly T[]): Promise<T[]>;
  /** The same, made of objects the caller owns (a read's own copies), in place where the shapes agree. */
  servedOwn(stored: readonly T[]): Promise<T[]>;
  /** An object about to be written (the caller's) in its stored form. */
  toStorage(object: T): Promise<T>;
  /** A stored object just written by this version (decoded, defaulted and checked already), as served. */
  written(stored: T): Promise<T>;
  /** Whether a list's items keep their apiVersion and kind (unstructured lists' do, as upstream's). */
  readonly itemsCarryType: boolean;
}

/** What a version does to an object after converting it on the way out (an unstructured kind's schema). */
interface Decoding<T extends KubeObject> {
  /** Prunes and defaults `object` in place; whether anything changed. */
  apply(object: T): boolean;
}

/** The stored form of an unstructured kind or of a kind stored as another; undefined for the others. */
export function storedFormOf<T extends KubeObject>(resolved: ResolvedResource<T>): StoredForm<T> | undefined {
  const storedAs = resolved.definition.storedAs;
  if (storedAs) return storedForm(resolved, resolved.storedApiVersion, storedKindConverter(resolved, storedAs), undefined, false);
  const rules = resolved.definition.unstructured;
  if (!rules) return undefined;
  const decoding: Decoding<T> = {
    apply(object) {
      const pruned = rules.prune(object).length > 0;
      return rules.default(object) || pruned;
    },
  };
  const storageApiVersion = resolved.group ? `${resolved.group}/${rules.storageVersion}` : rules.storageVersion;
  // An unstructured kind's items say their apiVersion and kind, as upstream's unstructured lists.
  return storedForm(resolved, storageApiVersion, rules.converter ?? noneConverter, decoding, true);
}

/** Objects stored in `storageApiVersion`, converted by `converter`, then decoded by `decoding` where given. */
function storedForm<T extends KubeObject>(
  resolved: ResolvedResource<T>,
  storageApiVersion: string,
  converter: Converter,
  decoding: Decoding<T> | undefined,
  itemsCarryType: boolean,
): StoredForm<T> {
  const { apiVersion, kind } = resolved;
  const convert = (objects: readonly T[], to: string): Promise<T[]> => converter.convert(objects, to) as Promise<T[]>;
  const typed = (object: T): T => {
    object.apiVersion = apiVersion;
    object.kind = kind;
    return object;
  };
  /**
   * A converted object as served, from its stored object, which neither is changed: the stored
   * object itself where conversion and decoding change nothing, so that a watch cache's lists serve
   * its objects as they are.
   */
  const decoded = (stored: T, converted: T): T => {
    if (!decoding) return typed(converted);
    const copy = deepCopy(converted);
    const changed = decoding.apply(copy);
    return changed || converted !== stored || stored.kind !== kind ? typed(copy) : stored;
  };
  const made = new WeakMap<T, T>();
  return {
    async served(stored) {
      const out = new Array<T>(stored.length);
      const missing: number[] = [];
      stored.forEach((object, i) => {
        const served = made.get(object);
        if (served) out[i] = served;
        else missing.push(i);
      });
      if (missing.length === 0) return out;
      const converted = await convert(
        missing.map((i) => stored[i]!),
        apiVersion,
      );
      missing.forEach((i, j) => {
        const object = stored[i]!;
        // Made meanwhile by another read of the same objects: theirs, so that it stays one object.
        let served = made.get(object);
        if (!served) made.set(object, (served = decoded(object, converted[j]!)));
        out[i] = served;
      });
      return out;
    },
    async servedOwn(stored) {
      const converted = await convert(stored, apiVersion);
      return converted.map((object) => {
        decoding?.apply(object);
        return typed(object);
      });
    },
    async toStorage(object) {
      const [stored] = await convert([object], storageApiVersion);
      return stored!;
    },
    // What was written was decoded, pruned and defaulted already: it only takes this version's form.
    async written(stored) {
      const [object] = await convert([stored], apiVersion);
      return typed(object!);
    },
    itemsCarryType,
  };
}

/**
 * A kind stored as another, as a converter between the two: to the stored kind's apiVersion it
 * makes the stored form, to any other the served one (each a new object, with its type).
 */
function storedKindConverter<T extends KubeObject>(resolved: ResolvedResource<T>, storedAs: StoredKind<T>): Converter {
  const { storedApiVersion } = resolved;
  const one = (object: KubeObject, to: string): KubeObject => {
    if (to === storedApiVersion) {
      const stored = storedAs.toStored(object as T);
      stored.apiVersion = storedApiVersion;
      stored.kind = storedAs.kind;
      return stored;
    }
    const served = storedAs.fromStored(object);
    served.apiVersion = to;
    served.kind = resolved.kind;
    return served;
  };
  return { convert: (objects, to) => Promise.resolve(objects.map((object) => one(object, to))) };
}
