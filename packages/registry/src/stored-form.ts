// Between an unstructured kind's stored objects and the objects one of its versions serves: stored
// in the storage version, served in each version with only apiVersion rewritten (conversion None),
// with the schema's pruning and defaults applied on the way out, as upstream's storage decoding for
// custom resources applies them. Typed kinds need none of this: their stored form is served as is.
import { deepCopy } from '@plat/merge';
import type { KubeObject } from './definition.js';
import type { ResolvedResource } from './resolved.js';

export interface StoredForm<T extends KubeObject> {
  /**
   * The object as this version serves it (kind and apiVersion set), made from a stored object,
   * which is not changed (it may be a watch cache's shared object). Made once per stored object.
   */
  served(stored: T): T;
  /** The same, made of an object the caller owns (a read's own copy), in place. */
  servedInPlace(stored: T): T;
  /** Gives an object about to be written the storage version's apiVersion (in place). */
  toStorage(object: T): T;
}

/** The stored form of an unstructured kind; undefined for a typed one. */
export function storedFormOf<T extends KubeObject>(resolved: ResolvedResource<T>): StoredForm<T> | undefined {
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
  };
}
