// YAML request bodies: a document nested past the bound is refused with the depth message wherever
// the stack stands when it is parsed (deep enough, the yaml library's recursion once ended the
// process inside V8's regular-expression compiler); within the bound it is decoded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { depthExceededMessage } from '@plat/apimachinery';
import { parseYaml } from './yaml-body.js';

const flow = (depth: number): string => `x: ${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
const blockSequences = (depth: number): string => `${'- '.repeat(depth)}x\n`;
const blockMaps = (depth: number): string => Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}a:`).join('\n') + ' 1\n';

/** parseYaml called `frames` calls deeper than the caller. */
function parseAt(frames: number, text: string): ReturnType<typeof parseYaml> {
  return frames > 0 ? parseAt(frames - 1, text) : parseYaml(text);
}

test('parseYaml: nesting past 500 is refused wherever the stack stands, in flow and block style', () => {
  for (const [name, text] of [
    ['flow collections, 2,500 deep', flow(1250)],
    ['block sequences, 3,000 deep', blockSequences(3000)],
    ['block maps, 600 deep', blockMaps(600)],
  ] as const) {
    for (let frames = 0; frames < 4000; frames += 97) {
      assert.deepEqual(parseAt(frames, text), { value: undefined, duplicates: [], error: depthExceededMessage }, `${name}, ${frames} frames down`);
    }
  }
});

test('parseYaml: nesting within the bound is decoded; one document only', () => {
  const parsed = parseYaml(flow(240));
  assert.equal(parsed.error, undefined);
  let value = (parsed.value as { x: unknown }).x;
  let depth = 0;
  while (typeof value === 'object' && value !== null) {
    value = Array.isArray(value) ? value[0] : (value as { a: unknown }).a;
    depth++;
  }
  assert.deepEqual([depth, value], [480, 1]);
  assert.deepEqual(parseYaml(blockSequences(499)).error, undefined);
  assert.deepEqual(parseYaml('a: 1\nb: [2, {c: 3}]\n'), { value: { a: 1, b: [2, { c: 3 }] }, duplicates: [] });
  assert.match(parseYaml('a: 1\n---\nb: 2\n').error ?? '', /^Source contains multiple documents/);
});
