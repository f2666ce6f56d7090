import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { initialSeatDemandStats, Integrator, nextSeatDemandStats, SEAT_DEMAND_SMOOTHING } from './seat-demand.js';

describe('seat demand statistics (upstream integrator.go and seatDemandStats.update)', () => {
  test('the integrator weighs each value by how long it held: 2 seats for 1 s then 4 for 3 s', () => {
    let now = 0;
    const igr = new Integrator(() => now);
    igr.set(2);
    now = 1000;
    igr.set(4);
    now = 4000;
    const r = igr.reset();
    assert.equal(r.duration, 4);
    assert.equal(r.average, (2 * 1 + 4 * 3) / 4);
    // E[x²] = (4·1 + 16·3)/4 = 13; variance = 13 − 3.5² = 0.75.
    assert.ok(Math.abs(r.deviation - Math.sqrt(0.75)) < 1e-12);
    assert.equal(r.max, 4);
    // After a reset the window starts at the current value.
    now = 5000;
    assert.deepEqual(igr.results(), { duration: 1, average: 4, deviation: 0, min: 4, max: 4 });
  });

  test('with no time integrated, average and deviation are NaN and only the high watermark is taken', () => {
    const igr = new Integrator(() => 0);
    igr.set(7);
    const r = igr.results();
    assert.ok(Number.isNaN(r.average) && Number.isNaN(r.deviation));
    const stats = nextSeatDemandStats({ avg: 1, stdDev: 1, highWatermark: 1, smoothed: 5 }, r);
    assert.deepEqual(stats, { avg: 1, stdDev: 1, highWatermark: 7, smoothed: 5 });
  });

  test('smoothed follows a rise at once and decays with 0.977/0.023', () => {
    const rising = nextSeatDemandStats(initialSeatDemandStats, { duration: 10, average: 8, deviation: 2, min: 0, max: 12 });
    assert.deepEqual(rising, { avg: 8, stdDev: 2, highWatermark: 12, smoothed: 10 });
    const falling = nextSeatDemandStats(rising, { duration: 10, average: 0, deviation: NaN, min: 0, max: 0 });
    assert.equal(SEAT_DEMAND_SMOOTHING, 0.977);
    assert.deepEqual(falling, { avg: 0, stdDev: 0, highWatermark: 0, smoothed: 0.977 * 10 + (1 - 0.977) * 0 });
    // The half-life is about 30 steps of 10 s: 5 minutes.
    let s = rising;
    for (let i = 0; i < 30; i++) s = nextSeatDemandStats(s, { duration: 10, average: 0, deviation: 0, min: 0, max: 0 });
    assert.ok(s.smoothed > 4.9 && s.smoothed < 5.1, String(s.smoothed));
  });
});
