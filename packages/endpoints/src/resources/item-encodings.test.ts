import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ItemEncodings, SLAB_BYTES } from './item-encodings.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const bytesOf = (length: number, fill: number): Uint8Array => new Uint8Array(length).fill(fill);

test('kept encodings are copies, in slabs of their own, counted by the slab', () => {
  const encodings = new ItemEncodings(4 * SLAB_BYTES);
  const items = Array.from({ length: 3 }, () => ({}));
  const sources = items.map((_, i) => bytesOf(100, i + 1));
  items.forEach((item, i) => encodings.keep(item, sources[i]!));
  sources[0]!.fill(9);
  assert.deepEqual(new Uint8Array(encodings.get(items[0]!)!), bytesOf(100, 1), 'a copy, not the buffer given');
  assert.deepEqual(new Uint8Array(encodings.get(items[2]!)!), bytesOf(100, 3));
  const kept = encodings.get(items[1]!)!;
  assert.equal(kept.buffer.byteLength, SLAB_BYTES, 'cut from a slab, not from node\'s shared pool');
  assert.equal(encodings.bytes, SLAB_BYTES, 'the slab is what is held');
  assert.equal(encodings.keep(items[1]!, bytesOf(5, 7)), undefined, 'an item keeps its first encoding');
});

test('the budget counts whole slabs: past it nothing more is kept', () => {
  const encodings = new ItemEncodings(2 * SLAB_BYTES);
  const size = SLAB_BYTES / 8;
  const items = Array.from({ length: 20 }, () => ({}));
  const kept = items.map((item) => encodings.keep(item, bytesOf(size, 1)) !== undefined);
  assert.deepEqual(kept, items.map((_, i) => i < 16));
  assert.equal(encodings.bytes, 2 * SLAB_BYTES);
  assert.equal(encodings.hasRoom(1), false);
});

test('an encoding larger than a quarter slab gets a slab of its size', () => {
  const encodings = new ItemEncodings(4 * SLAB_BYTES);
  const large = encodings.keep({}, bytesOf(SLAB_BYTES / 2, 2))!;
  assert.equal(large.buffer.byteLength, SLAB_BYTES / 2);
  assert.equal(encodings.bytes, SLAB_BYTES / 2);
  assert.equal(encodings.keep({}, bytesOf(4 * SLAB_BYTES, 2)), undefined, 'one that would pass the budget is not kept');
});

test('keepText writes the UTF-8 of the text', () => {
  const encodings = new ItemEncodings();
  for (const text of ['plain', '{"name":"é ✓ 𝄞"}', '']) {
    const kept = encodings.keepText({}, text, Buffer.byteLength(text));
    assert.equal(Buffer.from(kept!).toString(), text);
  }
});

test('a slab is released once every item in it has been collected, and not before', async () => {
  const encodings = new ItemEncodings(8 * SLAB_BYTES);
  const survivor = {};
  (() => {
    // Two full slabs of items that go away, and one item that stays in the third.
    for (let i = 0; i < 8; i++) encodings.keep({}, bytesOf(SLAB_BYTES / 4, 1));
    encodings.keep(survivor, bytesOf(10, 1));
  })();
  assert.equal(encodings.bytes, 3 * SLAB_BYTES);
  for (let i = 0; i < 20 && encodings.bytes > SLAB_BYTES; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(encodings.bytes, SLAB_BYTES, 'the two slabs of collected items are released, the one being filled is held');
  assert.ok(encodings.get(survivor));
});
