// A simulated clock for the tests: timers fire in time order (ties in the order they were set),
// and between two firings every promise continuation runs, so that what a fired timer sets off
// happens at the same simulated time, as upstream's fake event clock waits for its goroutines.
import type { Clock } from './clock.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    // Sorted insert: the lists here stay short enough for it.
    let i = this.timers.length;
    while (i > 0 && (this.timers[i - 1]!.at > timer.at || (this.timers[i - 1]!.at === timer.at && this.timers[i - 1]!.seq > timer.seq))) i--;
    this.timers.splice(i, 0, timer);
    return () => {
      const at = this.timers.indexOf(timer);
      if (at >= 0) this.timers.splice(at, 1);
    };
  }

  /** A promise resolved `ms` of simulated time from now. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(resolve, ms));
  }

  /** Fires timers in order until none is due at or before `until` (all of them without it); then the time is `until`. */
  async run(until?: number): Promise<void> {
    await settle();
    for (;;) {
      const next = this.timers[0];
      if (!next || (until !== undefined && next.at > until)) break;
      this.timers.shift();
      this.time = next.at;
      next.fn();
      await settle();
    }
    if (until !== undefined && until > this.time) this.time = until;
  }
}
