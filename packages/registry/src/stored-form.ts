// Between a kind's stored objects and the objects one of its versions serves, where the two differ.
// An unstructured kind's are stored in the storage version and served in each version with only
// apiVersion rewritten (conversion None), with the schema's pruning and defaults applied on the way
// out, as upstream's storage decoding for custom resources applies them. A kind stored as another
// (storedAs: events.{domain}/v1 Event over core v1 Events) is converted both ways. Other typed kinds
// need none of this: their stored form is served as is.
import { deepCopy } from '@plat/merge';
import type { KubeObject, StoredKind } from './definition.js';
import type { ResolvedResource } from './resolved.js';

export interface StoredForm<T extends KubeObject> {
  /**
   * The object as this version serves it (kind and apiVersion set), made from a stored object,
   * which is not changed (it may be a watch cache's shared object). Made once per stored object.
   */
  served(stored: T): T;
  /** The same, made of an object the caller owns (a read's own copy), in place. */
  servedInPlace(stored: T): T;
  /** Makes an object about to be written its stored form (in place where the shapes agree). */
  toStorage(object: T): T;
  /** A stored object just written by this version (decoded, defaulted and checked already), as served. */
  written(stored: T): T;
  /** Whether a list's items keep their apiVersion and kind (unstructured lists' do, as upstream's). */
  readonly itemsCarryType: boolean;
}

/** The stored form of an unstructured kind or of a kind stored as another; undefined for the others. */
export function storedFormOf<T extends KubeObject>(resolved: ResolvedResource<T>): StoredForm<T> | undefined {
  const storedAs = resolved.definition.storedAs;
  if (storedAs) return convertedForm(resolved, storedAs);
  const rules = resolved.definition.unstructured;
  if (!rules) return undefined;
  const storageApiVersion = resolved.group ? `${resolved.group}/${rules.storageVersion}` : rules.storageVersion;
  const made = new WeakMap<T, T>();
  return {
    served(stored) {
      let object = made.get(stored);
      if (object) return object;
      const copy = deepCopy(stored);
      const pruned = rules.prune(copy).length > 0;
      const defaulted = rules.default(copy);
      if (pruned || defaulted || stored.apiVersion !== resolved.apiVersion || stored.kind !== resolved.kind) {
        copy.apiVersion = resolved.apiVersion;
        copy.kind = resolved.kind;
        object = copy;
      } else {
        object = stored;
      }
      made.set(stored, object);
      return object;
    },
    servedInPlace(stored) {
      rules.prune(stored);
      rules.default(stored);
      stored.apiVersion = resolved.apiVersion;
      stored.kind = resolved.kind;
      return stored;
    },
    toStorage(object) {
      object.apiVersion = storageApiVersion;
      object.kind = resolved.kind;
      return object;
    },
    // What was written was decoded, pruned and defaulted already: it only takes this version's apiVersion.
    written(stored) {
      stored.apiVersion = resolved.apiVersion;
      stored.kind = resolved.kind;
      return stored;
    },
    // An unstructured kind's items say their apiVersion and kind, as upstream's unstructured lists.
    itemsCarryType: true,
  };
}

/** A kind stored as another: converted on the way in and out, each stored object once. */
function convertedForm<T extends KubeObject>(resolved: ResolvedResource<T>, storedAs: StoredKind<T>): StoredForm<T> {
  const storedApiVersion = resolved.storedApiVersion;
  const made = new WeakMap<T, T>();
  const convert = (stored: T): T => {
    const object = storedAs.fromStored(stored);
    object.apiVersion = resolved.apiVersion;
    object.kind = resolved.kind;
    return object;
  };
  return {
    served(stored) {
      let object = made.get(stored);
      if (!object) made.set(stored, (object = convert(stored)));
      return object;
    },
    servedInPlace: convert,
    toStorage(object) {
      const stored = storedAs.toStored(object);
      stored.apiVersion = storedApiVersion;
      stored.kind = storedAs.kind;
      return stored as T;
    },
    written: convert,
    itemsCarryType: false,
  };
}
