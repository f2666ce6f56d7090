// A request's cost (upstream's request.WorkEstimate and SeatSeconds): seats held while it runs,
// seats held for a moment after it (the watch events a write causes), and that moment. Work is
// measured in seat-seconds, kept as upstream keeps it: an integer count of 1e-8 seat-seconds,
// so that the virtual clock adds exactly. A double is exact to 2^53 of them (9e7 seat-seconds)
// where upstream's uint64 has 2^64: the epoch advance winds R back before that (at 600
// seat-seconds a second, every 31 hours), and one step between two events of a level stays far
// below it (seats in use times the time between events, which requests' timeouts bound).
import { goRound } from './go-math.js';

export interface WorkEstimate {
  initialSeats: number;
  /** Seats held for additionalLatencyMs after the request returns; 0 for none. */
  finalSeats: number;
  additionalLatencyMs: number;
}

export function maxSeats(we: WorkEstimate): number {
  return Math.max(we.initialSeats, we.finalSeats);
}

/** Integer units of 1e-8 seat-seconds (upstream's ssScale). */
export type SeatSeconds = number;
const UNITS_PER_SEAT_SECOND = 1e8;
const UNITS_PER_SEAT_MS = UNITS_PER_SEAT_SECOND / 1000;

/** The largest value kept exact; the virtual clock winds back before it gets there. */
export const MAX_SEAT_SECONDS: SeatSeconds = Number.MAX_SAFE_INTEGER;

export function seatsTimesDuration(seats: number, ms: number): SeatSeconds {
  return goRound(seats * ms * UNITS_PER_SEAT_MS);
}

/** The time `seats` seats take to do `ss` of work, in milliseconds truncated to whole nanoseconds as Go's time.Duration. */
export function durationPerSeat(ss: SeatSeconds, seats: number): number {
  return Math.trunc((ss / seats) * (1e9 / UNITS_PER_SEAT_SECOND)) / 1e6;
}

/** As upstream's SeatSeconds.String: whole seat-seconds, eight decimals, "ss". */
export function formatSeatSeconds(ss: SeatSeconds): string {
  const whole = Math.floor(ss / UNITS_PER_SEAT_SECOND);
  return `${whole}.${String(ss - whole * UNITS_PER_SEAT_SECOND).padStart(8, '0')}ss`;
}
