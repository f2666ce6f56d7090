// How a server's concurrency is divided among priority levels (upstream's
// finishQueueSetReconfigsLocked): each level's nominal limit is its share of the server's limit,
// rounded up; what it may lend and borrow are percentages of that; and a queuing level's widest
// request is bounded by its size.
import { goRound } from './go-math.js';
import type { PriorityLevelConfiguration } from './types.js';

/** The server's limit: --max-requests-inflight plus --max-mutating-requests-inflight (default 400 + 200). */
export function serverConcurrencyLimit(maxRequestsInFlight: number, maxMutatingRequestsInFlight: number): number | { error: string } {
  const sum = maxRequestsInFlight + maxMutatingRequestsInFlight;
  if (sum <= 0) {
    return { error: `invalid configuration: MaxRequestsInFlight=${maxRequestsInFlight} and MaxMutatingRequestsInFlight=${maxMutatingRequestsInFlight}; they must add up to something positive` };
  }
  return sum;
}

/** A level's shares and percentages, whichever of its union arms carries them (upstream's plSpecCommons). */
export function levelCommons(pl: PriorityLevelConfiguration): { shares: number; lendablePercent?: number; borrowingLimitPercent?: number } {
  const limited = pl.spec.limited;
  if (limited) return { shares: limited.nominalConcurrencyShares, lendablePercent: limited.lendablePercent, borrowingLimitPercent: limited.borrowingLimitPercent };
  return { shares: pl.spec.exempt?.nominalConcurrencyShares ?? 0, lendablePercent: pl.spec.exempt?.lendablePercent };
}

export interface LevelLimits {
  nominalCL: number;
  lendableCL: number;
  borrowingCL: number;
  /** nominalCL − lendableCL: the least the level keeps. */
  minCL: number;
  /** nominalCL + borrowingCL: the most it may reach. */
  maxCL: number;
  /** The limit a new level starts with, until the first borrowing adjustment replaces it. */
  initialCL: number;
}

/**
 * One level's limits given the sum of the shares of every level (quiescing ones included).
 * nominalCL = ceil(serverCL·shares/shareSum); lendable and borrowing are rounded as Go rounds;
 * with no borrowingLimitPercent a level may borrow up to the whole server.
 */
export function levelLimits(serverCL: number, shareSum: number, pl: PriorityLevelConfiguration): LevelLimits {
  const { shares, lendablePercent, borrowingLimitPercent } = levelCommons(pl);
  const nominalCL = shareSum > 0 ? Math.ceil((serverCL * shares) / shareSum) : 0;
  const lendableCL = lendablePercent === undefined ? 0 : goRound((nominalCL * lendablePercent) / 100);
  const borrowingCL = borrowingLimitPercent === undefined ? serverCL : goRound((nominalCL * borrowingLimitPercent) / 100);
  return {
    nominalCL,
    lendableCL,
    borrowingCL,
    minCL: nominalCL - lendableCL,
    maxCL: nominalCL + borrowingCL,
    initialCL: nominalCL - Math.trunc(lendableCL / 2),
  };
}

/**
 * The widest request a queuing level admits: max(1, min(ceil(0.15·nominalCL), nominalCL/handSize)),
 * the division an integer one. 15% keeps the old cap of 10 seats at the default server limit of 600.
 */
export function levelMaxSeats(nominalCL: number, handSize: number): number {
  return Math.max(1, Math.min(Math.ceil(nominalCL * 0.15), Math.trunc(nominalCL / handSize)));
}
