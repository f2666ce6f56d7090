import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, builtinSubresourceDefinitions } from '@plat/api';
import { encodeObject } from './codec.js';
import { registerProtobufKinds } from './kinds.js';
import { listParts } from './list-parts.js';
import { fixtures } from './fixtures.test-support.js';
import { customResourceDefinitionSource } from './testing/crd-source.js';

registerProtobufKinds([...builtinDefinitions, ...builtinSubresourceDefinitions, customResourceDefinitionSource]);

type List = { items: object[] };

const joined = (json: ReturnType<typeof fixtures.listOf>): Buffer => {
  const list = json as unknown as List;
  const parts = listParts(list);
  const items = list.items.map((item) => parts.item(item));
  const length = parts.metadata.length + items.reduce((sum, item) => sum + item.length, 0);
  assert.deepEqual(list.items.map((item) => parts.itemLength(item)), items.map((item) => item.length));
  // The scratch bytes are each item's own, however the one before was sized.
  for (let i = 0; i < list.items.length; i++) assert.ok(Buffer.from(parts.encodeItem(list.items[i]!)).equals(items[i]!));
  assert.ok(Buffer.from(parts.items(list.items)).equals(Buffer.concat(items)));
  return Buffer.concat([parts.head(length), parts.metadata, ...items, parts.tail]);
};

for (const kind of ['ServiceAccount', 'Role', 'Event', 'Lease']) {
  for (const count of [0, 1, 3, 200]) {
    test(`a ${kind}List of ${count} in parts is encodeObject's bytes`, () => {
      const list = fixtures.listOf(fixtures.objectsByKind[kind]!, count, { resourceVersion: '5000', continue: 'eyJydiI6NTAwMH0', remainingItemCount: 12 });
      assert.ok(joined(list).equals(Buffer.from(encodeObject(list))));
      assert.equal((list as unknown as List).items.length, count);
    });
  }
}

test('a message past 127 bytes takes a longer length varint in the head', () => {
  const parts = listParts(fixtures.listOf(fixtures.objectsByKind.ServiceAccount!, 0) as unknown as List);
  assert.equal(parts.head(300).length, parts.head(100).length + 1);
});

test('an item that fails to encode leaves the scratch buffer fit for the next', () => {
  const list = fixtures.listOf(fixtures.objectsByKind.ServiceAccount!, 2) as unknown as List;
  const parts = listParts(list);
  const expected = Buffer.from(parts.item(list.items[1]!));
  assert.throws(() => parts.encodeItem({ metadata: { name: 'x', labels: 'not a map' } }));
  assert.ok(Buffer.from(parts.encodeItem(list.items[1]!)).equals(expected));
});
