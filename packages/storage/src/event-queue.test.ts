import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventQueue, nextTurn } from './event-queue.js';

describe('EventQueue runs', () => {
  it('batches: what queued since the last look, in order, as one run', async () => {
    const queue = new EventQueue<number>();
    const runs: number[][] = [];
    const reading = (async () => {
      for await (const run of queue.batches()) runs.push(run);
    })();
    queue.push(1);
    queue.pushAll([2, 3, 4]);
    await new Promise((resolve) => setImmediate(resolve));
    queue.push(5);
    queue.end();
    await reading;
    assert.deepEqual(runs, [[1, 2, 3, 4], [5]]);
  });

  it('coalesced runs gather what several callbacks of one loop turn pushed', async () => {
    const queue = new EventQueue<string>();
    const runs: string[][] = [];
    const reading = (async () => {
      for await (const run of queue.batches({ coalesce: true })) runs.push(run);
    })();
    // Two callbacks of one check phase: the consumer, woken by the first, waits for a later turn.
    setImmediate(() => queue.push('a'));
    setImmediate(() => queue.push('b'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    queue.end();
    await reading;
    assert.deepEqual(runs, [['a', 'b']]);
  });

  it('nextTurn resumes waiters in slices, with the loop free between slices', async () => {
    let resumed = 0;
    const waiting = Array.from({ length: 100 }, () => nextTurn().then(() => resumed++));
    // Queued after the first slice's turn: it runs before the second slice.
    const seenBetween = await new Promise<number>((resolve) => setImmediate(() => resolve(resumed)));
    await Promise.all(waiting);
    assert.equal(seenBetween, 32);
    assert.equal(resumed, 100);
  });
});
