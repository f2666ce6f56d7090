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

  it('a direct taker is offered what comes while the iteration waits, and nothing out of order', async () => {
    type Step = { push: number[] } | { tick: true };
    const cases: { name: string; takes: (run: readonly number[]) => boolean; steps: Step[]; direct: number[][]; iterated: number[][] }[] = [
      {
        name: 'runs pushed while the iteration waits are taken where they are pushed',
        takes: () => true,
        steps: [{ push: [1, 2] }, { push: [3] }, { tick: true }, { push: [4] }],
        direct: [[1, 2], [3], [4]],
        iterated: [],
      },
      {
        name: 'a run the taker declines goes through the iteration',
        takes: (run) => run[0] !== 3,
        steps: [{ push: [1] }, { tick: true }, { push: [3, 4] }, { tick: true }, { push: [5] }],
        direct: [[1], [5]],
        iterated: [[3, 4]],
      },
      {
        // Once a run is queued the iteration is woken: what follows queues behind it, never past it.
        name: 'runs behind a queued one are queued with it',
        takes: (run) => run[0] !== 3,
        steps: [{ push: [3] }, { push: [5] }, { push: [6] }, { tick: true }, { push: [7] }],
        direct: [[7]],
        iterated: [[3, 5, 6]],
      },
    ];
    for (const { name, takes, steps, direct, iterated } of cases) {
      const queue = new EventQueue<number>();
      const taken: number[][] = [];
      const runs: number[][] = [];
      const reading = (async () => {
        for await (const run of queue.batches({ direct: (items) => takes(items) && taken.push([...items]) > 0 })) runs.push(run);
      })();
      // The iteration reaches its wait.
      await new Promise((resolve) => setImmediate(resolve));
      for (const step of steps) {
        if ('push' in step) queue.pushAll(step.push);
        else await new Promise((resolve) => setImmediate(resolve));
      }
      queue.end();
      await reading;
      assert.deepEqual(taken, direct, `${name}: taken directly`);
      assert.deepEqual(runs, iterated, `${name}: through the iteration`);
    }
  });

  it('a direct taker that throws fails the iteration; one that has ended is offered nothing', async () => {
    const failing = new EventQueue<number>();
    const reading = (async () => {
      for await (const run of failing.batches({ direct: () => { throw new Error('socket gone'); } })) void run;
    })();
    await new Promise((resolve) => setImmediate(resolve));
    failing.pushAll([1]);
    await assert.rejects(reading, /socket gone/);

    const queue = new EventQueue<number>();
    let offered = 0;
    queue.pushAll([0]);
    for await (const run of queue.batches({ direct: () => ++offered > 0 })) {
      void run;
      break;
    }
    queue.pushAll([1]);
    assert.equal(offered, 0, 'offered after the iteration ended');
  });
});

