import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JoinedRuns } from './joined-runs.js';

const frame = (text: string): Uint8Array => Buffer.from(text);

test('joined runs: one copy per distinct run, the bytes always those of the frames', () => {
  const [a, b, c] = [frame('a\n'), frame('b\n'), frame('c\n')];
  const sameBytesAsA = frame('a\n');
  const cases: { name: string; runs: Uint8Array[][]; shared: [number, number][]; distinct: [number, number][] }[] = [
    { name: 'the same frames are joined once', runs: [[a, b], [a, b], [a, b]], shared: [[0, 1], [1, 2]], distinct: [] },
    { name: 'a longer run (a watcher behind) is its own', runs: [[a, b], [a, b, c]], shared: [], distinct: [[0, 1]] },
    { name: 'a different middle frame (a selector) is its own', runs: [[a, b, c], [a, c, c]], shared: [], distinct: [[0, 1]] },
    { name: 'equal bytes in another frame are not the same frame', runs: [[a, b], [sameBytesAsA, b]], shared: [], distinct: [[0, 1]] },
    { name: 'runs interleaved within capacity are found again', runs: [[a, b], [b, c], [a, b]], shared: [[0, 2]], distinct: [[0, 1]] },
  ];
  for (const { name, runs, shared, distinct } of cases) {
    const joins = new JoinedRuns();
    const out = runs.map((run) => joins.join(run));
    runs.forEach((run, i) => assert.equal(Buffer.from(out[i]!).toString(), run.map((f) => Buffer.from(f).toString()).join(''), name));
    for (const [i, j] of shared) assert.equal(out[i], out[j], `${name}: runs ${i} and ${j} share one buffer`);
    for (const [i, j] of distinct) assert.notEqual(out[i], out[j], `${name}: runs ${i} and ${j} are joined apart`);
  }
});

test('joined runs: a single frame is written as it is, and the memory is bounded', () => {
  const joins = new JoinedRuns({ capacity: 2 });
  const single = frame('x\n');
  assert.equal(joins.join([single]), single);
  const first = [frame('1'), frame('2')];
  const joinedFirst = joins.join(first);
  joins.join([frame('3'), frame('4')]);
  joins.join([frame('5'), frame('6')]);
  // Pushed out by two newer runs: joined again.
  assert.notEqual(joins.join(first), joinedFirst);
});

test('joined runs, chunked: each run is one HTTP/1.1 chunk, a single frame included', () => {
  const joins = new JoinedRuns({ chunked: true });
  const cases = [
    { frames: [frame('{"a":1}\n')], want: '8\r\n{"a":1}\n\r\n' },
    { frames: [frame('x'.repeat(20)), frame('y'.repeat(12))], want: `20\r\n${'x'.repeat(20)}${'y'.repeat(12)}\r\n` },
  ];
  for (const { frames, want } of cases) {
    const joined = joins.join(frames);
    assert.equal(Buffer.from(joined).toString(), want);
    assert.equal(joins.join(frames), joined, 'joined once');
  }
});
