import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from './definition.js';
import { listItem } from './list-item.js';

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
