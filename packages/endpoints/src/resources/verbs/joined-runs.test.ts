import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiWatchEvent } from '@plat/registry';
import { JoinedRuns } from './joined-runs.js';

/** Events whose frame is their name and a newline, each event's frame made once (as shared frames are). */
function framer(): { event: (name: string) => ApiWatchEvent; frame: (event: ApiWatchEvent) => Uint8Array; framed: () => number } {
  const frames = new Map<ApiWatchEvent, Uint8Array>();
  let framed = 0;
  return {
    event: (name) => ({ type: 'ADDED', object: { metadata: { name } } }),
    frame: (event) => {
      let frame = frames.get(event);
      if (!frame) {
        framed++;
        frames.set(event, (frame = Buffer.from(`${(event.object as { metadata: { name: string } }).metadata.name}\n`)));
      }
      return frame;
    },
    framed: () => framed,
  };
}

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString();

test('joined runs: one encoding per distinct run, the bytes always those of the frames', () => {
  const cases: { name: string; runs: (events: ApiWatchEvent[]) => ApiWatchEvent[][]; shared: [number, number][]; distinct: [number, number][] }[] = [
    { name: 'the same run array is joined once', runs: ([a, b]) => { const run = [a!, b!]; return [run, run, run]; }, shared: [[0, 1], [1, 2]], distinct: [] },
    { name: 'another array of the same events is found by its frames', runs: ([a, b]) => [[a!, b!], [a!, b!]], shared: [[0, 1]], distinct: [] },
    { name: 'a longer run (a watcher behind) is its own', runs: ([a, b, c]) => [[a!, b!], [a!, b!, c!]], shared: [], distinct: [[0, 1]] },
    { name: 'a different middle event (a selector) is its own', runs: ([a, b, c]) => [[a!, b!, c!], [a!, c!, c!]], shared: [], distinct: [[0, 1]] },
    { name: 'an event with the same bytes is not the same frame', runs: ([a, b, , sameAsA]) => [[a!, b!], [sameAsA!, b!]], shared: [], distinct: [[0, 1]] },
    { name: 'runs interleaved within capacity are found again', runs: ([a, b, c]) => { const first = [a!, b!]; return [first, [b!, c!], first]; }, shared: [[0, 2]], distinct: [[0, 1]] },
  ];
  for (const { name, runs, shared, distinct } of cases) {
    const { event, frame } = framer();
    const joins = new JoinedRuns(frame);
    const given = runs([event('a'), event('b'), event('c'), event('a')]);
    const out = given.map((run) => joins.join(run));
    given.forEach((run, i) => {
      assert.equal(text(out[i]!.bytes), run.map((e) => text(frame(e))).join(''), name);
      assert.deepEqual(out[i]!.sizes, run.map((e) => frame(e).byteLength), `${name}: sizes`);
    });
    for (const [i, j] of shared) assert.equal(out[i], out[j], `${name}: runs ${i} and ${j} share one encoding`);
    for (const [i, j] of distinct) assert.notEqual(out[i]!.bytes, out[j]!.bytes, `${name}: runs ${i} and ${j} are joined apart`);
  }
});

test('joined runs: a run handed to many watchers is framed once; a single frame is written as it is', () => {
  const { event, frame, framed } = framer();
  const joins = new JoinedRuns(frame);
  const run = [event('a'), event('b'), event('c')];
  for (let watcher = 0; watcher < 1000; watcher++) joins.join(run);
  assert.equal(framed(), 3);
  const single = [event('x')];
  assert.equal(joins.join(single).bytes, frame(single[0]!));
});

test('joined runs: the memory is bounded', () => {
  const { event, frame } = framer();
  const joins = new JoinedRuns(frame, { capacity: 2 });
  const first = [event('1'), event('2')];
  const joinedFirst = joins.join(first);
  joins.join([event('3'), event('4')]);
  joins.join([event('5'), event('6')]);
  // Pushed out by two newer runs: joined again.
  assert.notEqual(joins.join(first), joinedFirst);
});

test('joined runs, chunked: each run is one HTTP/1.1 chunk, a single frame included', () => {
  const { event, frame } = framer();
  const joins = new JoinedRuns(frame, { chunked: true });
  const cases = [
    { run: [event('{"a":1}')], want: '8\r\n{"a":1}\n\r\n' },
    { run: [event('x'.repeat(20)), event('y'.repeat(12))], want: `22\r\n${'x'.repeat(20)}\n${'y'.repeat(12)}\n\r\n` },
  ];
  for (const { run, want } of cases) {
    const joined = joins.join(run);
    assert.equal(text(joined.bytes), want);
    assert.equal(joins.join([...run]), joined, 'joined once');
  }
});
