// How objects are kept in the store: JSON without metadata.resourceVersion, which is derived from
// the revision of the write on the way out.
import type { StoredObject } from './interface.js';
import { StorageError } from './errors.js';

export function encodeObject(object: StoredObject, key: string): string {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    throw new StorageError('InvalidObject', `cannot store a non-object value at ${key}`, key);
  }
  const metadata = object.metadata;
  if (metadata === undefined || metadata.resourceVersion === undefined) return JSON.stringify(object);
  const { resourceVersion: _dropped, ...rest } = metadata;
  return JSON.stringify({ ...object, metadata: rest });
}

export function decodeObject<T extends StoredObject>(value: string | Buffer, revision: number, key: string): T {
  let object: T;
  try {
    object = JSON.parse(typeof value === 'string' ? value : value.toString()) as T;
  } catch (error) {
    throw new StorageError('InvalidObject', `stored value at ${key} is not valid JSON`, key, 0, { cause: error });
  }
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    throw new StorageError('InvalidObject', `stored value at ${key} is not an object`, key);
  }
  object.metadata = { ...object.metadata, resourceVersion: String(revision) };
  return object;
}
