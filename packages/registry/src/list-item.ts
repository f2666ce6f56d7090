// A list's items carry no apiVersion and kind (the list's say them). Items served from the watch
// cache are the cache's own objects, shared and never changed, and the same ones list after list.
//
// A list of them (sharedList) holds the objects themselves and makes the items only when its
// `items` are first read: the large lists are written from the objects (@plat/endpoints'
// list-stream.ts leaves apiVersion and kind out as it encodes, and Protobuf items never carry
// them), so a list of 100,000 objects makes no item at all. Where the items are made, the item of
// each object is kept beside it, made once and the same object from list to list.
import type { KubeObject } from './definition.js';
import type { ObjectList } from './requests.js';

const items = new WeakMap<object, KubeObject>();
const OBJECTS = Symbol('the objects of a shared list');

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

/** What a shared list is made of: its objects, and whether its items are the objects themselves. */
export interface ListObjects {
  readonly objects: readonly KubeObject[];
  /** The items keep their apiVersion and kind (an unstructured list's); otherwise each is the object's listItem. */
  readonly itemsCarryType: boolean;
}

/**
 * A list of shared objects: `items` (each object's listItem, or the objects themselves where they
 * carry their type, as unstructured lists' items do) are made when first read, and `listObjects`
 * gives the objects without making them. Neither the objects nor the items may be changed.
 */
export function sharedList<T extends KubeObject>(head: Omit<ObjectList<T>, 'items'>, objects: readonly T[], itemsCarryType = false): ObjectList<T> {
  let made: T[] | undefined = itemsCarryType ? (objects as T[]) : undefined;
  const list = { ...head } as ObjectList<T>;
  Object.defineProperty(list, 'items', {
    enumerable: true,
    configurable: true,
    get: () => (made ??= objects.map(listItem)),
    set: (value: T[]) => {
      made = value;
    },
  });
  Object.defineProperty(list, OBJECTS, { value: { objects, itemsCarryType } satisfies ListObjects });
  return list;
}

/** The objects a shared list's items are made of (each with its own apiVersion and kind), if it is one. */
export function listObjects(list: object): ListObjects | undefined {
  return (list as { [OBJECTS]?: ListObjects })[OBJECTS];
}
