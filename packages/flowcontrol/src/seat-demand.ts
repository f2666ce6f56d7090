// Seat demand over time (upstream's fairqueuing Integrator and seatDemandStats): each priority
// level's seats in use plus seats waiting is integrated between borrowing adjustments, giving the
// time-weighted average, standard deviation and high watermark; a smoothed envelope with a
// 5-minute half-life (at one step per 10 s) is what the level asks to borrow.

export interface IntegratorResults {
  /** Seconds integrated. */
  duration: number;
  average: number;
  deviation: number;
  min: number;
  max: number;
}

/** A piecewise-constant value integrated over time (seconds), with its first two moments. */
export class Integrator {
  private lastTime: number;
  private x = 0;
  private elapsed = 0;
  private integralX = 0;
  private integralXX = 0;
  private min = 0;
  private max = 0;

  constructor(private readonly now: () => number) {
    this.lastTime = now();
  }

  set(x: number): void {
    this.update();
    this.x = x;
    if (x < this.min) this.min = x;
    if (x > this.max) this.max = x;
  }

  add(delta: number): void {
    this.set(this.x + delta);
  }

  results(): IntegratorResults {
    this.update();
    let average = NaN;
    let deviation = NaN;
    if (this.elapsed > 0) {
      average = this.integralX / this.elapsed;
      const variance = this.integralXX / this.elapsed - average * average;
      deviation = variance >= 0 ? Math.sqrt(variance) : NaN;
    }
    return { duration: this.elapsed, average, deviation, min: this.min, max: this.max };
  }

  /** The results so far, then start again from the current value. */
  reset(): IntegratorResults {
    const results = this.results();
    this.elapsed = this.integralX = this.integralXX = 0;
    this.min = this.max = this.x;
    return results;
  }

  private update(): void {
    const now = this.now();
    const dt = (now - this.lastTime) / 1000;
    this.lastTime = now;
    this.elapsed += dt;
    this.integralX += this.x * dt;
    this.integralXX += this.x * this.x * dt;
  }
}

/** Upstream's seatDemandSmoothingCoefficient: a half-life of 5 minutes at one step per 10 s. */
export const SEAT_DEMAND_SMOOTHING = 0.977;
/** How often upstream adjusts the current limits (borrowingAdjustmentPeriod). */
export const BORROWING_ADJUSTMENT_PERIOD_MS = 10_000;

export interface SeatDemandStats {
  avg: number;
  stdDev: number;
  highWatermark: number;
  smoothed: number;
}

export const initialSeatDemandStats: SeatDemandStats = { avg: 0, stdDev: 0, highWatermark: 0, smoothed: 0 };

/**
 * One adjustment period's step: the high watermark is always taken; with time integrated, the
 * average and deviation are, and smoothed = max(envelope, 0.977·smoothed + 0.023·envelope) with
 * envelope = avg + stdDev.
 */
export function nextSeatDemandStats(prev: SeatDemandStats, obs: IntegratorResults): SeatDemandStats {
  if (obs.duration <= 0) return { ...prev, highWatermark: obs.max };
  const deviation = Number.isNaN(obs.deviation) ? 0 : obs.deviation;
  const envelope = obs.average + deviation;
  return {
    avg: obs.average,
    stdDev: deviation,
    highWatermark: obs.max,
    smoothed: Math.max(envelope, SEAT_DEMAND_SMOOTHING * prev.smoothed + (1 - SEAT_DEMAND_SMOOTHING) * envelope),
  };
}
