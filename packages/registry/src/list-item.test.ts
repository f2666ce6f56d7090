import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from './definition.js';
import { listItem, listObjects, sharedList } from './list-item.js';

describe('listItem', () => {
  const object = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: '7' }, data: { a: 'b' } });

  it('is the object without apiVersion and kind, and leaves the object as it was', () => {
    const source = object('one');
    assert.deepEqual(listItem(source), { metadata: { name: 'one', resourceVersion: '7' }, data: { a: 'b' } });
    assert.deepEqual(source, object('one'));
  });

  it('is the same item for the same object, a new one for another', () => {
    const source = object('one');
    assert.equal(listItem(source), listItem(source));
    assert.notEqual(listItem(source), listItem(object('one')));
  });
});

describe('sharedList', () => {
  const object = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: '7' } });
  const head = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' } };

  it('makes its items when they are first read, each the listItem of its object, and says what it is made of', () => {
    const objects = [object('a'), object('b')];
    const list = sharedList(head, objects);
    assert.deepEqual(listObjects(list), { objects, itemsCarryType: false });
    assert.deepEqual(list.items, objects.map(listItem));
    assert.equal(list.items, list.items, 'made once');
    assert.equal(list.items[0], listItem(objects[0]!));
    assert.equal(JSON.stringify(list), JSON.stringify({ ...head, items: objects.map(listItem) }), 'written as a list, items last');
    assert.deepEqual(Object.keys({ ...list }), ['apiVersion', 'kind', 'metadata', 'items']);
  });

  it("an unstructured list's items are its objects", () => {
    const objects = [object('a')];
    const list = sharedList(head, objects, true);
    assert.equal(list.items[0], objects[0]);
    assert.equal(listObjects(list)?.itemsCarryType, true);
  });

  it('takes items given to it, and a plain list is none', () => {
    const list = sharedList(head, [object('a')]);
    list.items = [];
    assert.deepEqual(list.items, []);
    assert.equal(listObjects({ ...head, items: [] }), undefined);
  });
});
