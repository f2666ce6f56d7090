// The Retry-After a 429 carries, per priority level (upstream's droppedRequestsTracker): it starts
// at 1 s; when a new second begins, if the level dropped at least 3·retryAfter requests in the
// last retryAfter seconds and retryAfter seconds have passed since it last grew, it doubles (to at
// most 32); if it dropped fewer than retryAfter, it shrinks by one (to at least 1).

const MAX_RETRY_AFTER = 32;

class LevelDrops {
  /** Whole seconds before the current one, with their drop counts. */
  private history: Array<{ second: number; count: number }> = [];
  private currentSecond = 0;
  private currentCount = 0;
  retryAfter = 1;
  private lastIncrease = 0;

  record(second: number): void {
    if (second === this.currentSecond) {
      this.currentCount++;
      return;
    }
    this.remember(this.currentSecond, this.currentCount);
    this.currentSecond = second;
    this.currentCount = 1;
    this.adjust(second);
  }

  private remember(second: number, count: number): void {
    this.history.push({ second, count });
    const keep = Math.min(2 * this.retryAfter, MAX_RETRY_AFTER);
    let start = 0;
    while (start < this.history.length && second - this.history[start]!.second > keep) start++;
    if (start > 0) this.history = this.history.slice(start);
  }

  private adjust(now: number): void {
    let dropped = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      const h = this.history[i]!;
      if (now - h.second > this.retryAfter) break;
      if (h.second < now) dropped += h.count;
    }
    if (now - this.lastIncrease >= this.retryAfter && dropped >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(2 * this.retryAfter, MAX_RETRY_AFTER);
      this.lastIncrease = now;
      return;
    }
    if (dropped < this.retryAfter && this.retryAfter > 1) this.retryAfter--;
  }
}

export class DroppedRequestsTracker {
  private readonly levels = new Map<string, LevelDrops>();

  /** now: milliseconds of wall-clock time (only its whole seconds count, as Unix time). */
  constructor(private readonly now: () => number) {}

  recordDroppedRequest(priorityLevel: string): void {
    let level = this.levels.get(priorityLevel);
    if (!level) this.levels.set(priorityLevel, (level = new LevelDrops()));
    level.record(Math.floor(this.now() / 1000));
  }

  /** Seconds, for the Retry-After header. */
  retryAfter(priorityLevel: string): number {
    return this.levels.get(priorityLevel)?.retryAfter ?? 1;
  }
}
