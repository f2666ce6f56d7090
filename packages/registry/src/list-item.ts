// A list's items carry no apiVersion and kind (the list's say them). Items served from the watch
// cache are the cache's own objects, shared and never changed, and the same ones list after list:
// the item made of each is kept beside it, so that it is made once and stays the same object,
// which lets the HTTP layer keep each item's encoding too (see the apiserver's respond.ts).
import type { KubeObject } from './definition.js';

const items = new WeakMap<object, KubeObject>();

/** `object` without apiVersion and kind; the same item for the same object. Neither may be changed. */
export function listItem<T extends KubeObject>(object: T): T {
  let item = items.get(object);
  if (!item) {
    const { apiVersion: _version, kind: _kind, ...rest } = object;
    item = rest as unknown as KubeObject;
    items.set(object, item);
  }
  return item as T;
}
