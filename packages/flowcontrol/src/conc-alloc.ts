// The borrowing allocation (upstream's computeConcurrencyAllocation): find the fair fraction f
// such that giving each level clamp(f·target, lower, upper) hands out exactly the required sum.
// Each level's allocation, as a function of f, is flat, then rises with slope `target` between
// f = lower/target and f = upper/target, then is flat again; the sum is piecewise linear and
// non-decreasing in f, so sweeping the sorted breakpoints finds f.

export interface AllocItem {
  target: number;
  lowerBound: number;
  upperBound: number;
}

/** Targets below this are raised to it, so that every level has a finite relative bound. */
export const MIN_TARGET = 0.001;
const EPSILON = 0.0000001;

export function computeConcurrencyAllocation(requiredSum: number, items: AllocItem[]): { allocs: number[]; fairFrac: number } | { error: string } {
  if (requiredSum < 0) return { error: 'negative sums are not supported' };
  let lowSum = 0;
  let highSum = 0;
  let targetSum = 0;
  let lbMin = Infinity;
  let lbMax = -Infinity;
  let ubMin = Infinity;
  let ubMax = -Infinity;
  const targets: number[] = [];
  for (const [idx, item] of items.entries()) {
    if (item.lowerBound < 0) return { error: `lower bound ${idx} is ${item.lowerBound} but negative lower bounds are not allowed` };
    if (item.target < item.lowerBound) return { error: `target ${idx} is ${item.target}, which is below its lower bound of ${item.lowerBound}` };
    if (item.upperBound < item.lowerBound) return { error: `upper bound ${idx} is ${item.upperBound} but should not be less than the lower bound ${item.lowerBound}` };
    const target = Math.max(item.target, MIN_TARGET);
    targets.push(target);
    lowSum += item.lowerBound;
    highSum += item.upperBound;
    targetSum += target;
    lbMin = Math.min(lbMin, item.lowerBound / target);
    lbMax = Math.max(lbMax, item.lowerBound / target);
    ubMin = Math.min(ubMin, item.upperBound / target);
    ubMax = Math.max(ubMax, item.upperBound / target);
  }
  if (lbMax > 1) return { error: `lbRange.max-1=${lbMax - 1}, which is impossible because lbRange.max can not be greater than 1` };
  if (lowSum - requiredSum > EPSILON) return { error: `lower bounds sum to ${lowSum}, which is higher than the required sum of ${requiredSum}` };
  if (requiredSum - highSum > EPSILON) return { error: `upper bounds sum to ${highSum}, which is lower than the required sum of ${requiredSum}` };
  if (requiredSum === 0) return { allocs: items.map(() => 0), fairFrac: 0 };
  // No room to move: everything at its lower bound, or everything at its upper bound.
  if (lowSum - requiredSum > -EPSILON) return { allocs: items.map((i) => i.lowerBound), fairFrac: lbMin };
  if (requiredSum - highSum > -EPSILON) return { allocs: items.map((i) => i.upperBound), fairFrac: ubMax };
  let fairFrac = requiredSum / targetSum;
  if (lbMax <= fairFrac && fairFrac <= ubMin) {
    // No bound bites: plain proportion.
    return { allocs: targets.map((t) => t * fairFrac), fairFrac };
  }
  // The breakpoints, ascending: where a level starts rising (+target) and stops (−target).
  const breaks = items.flatMap((item, idx) => [
    { at: item.lowerBound / targets[idx]!, slope: targets[idx]! },
    { at: item.upperBound / targets[idx]!, slope: -targets[idx]! },
  ]);
  breaks.sort((a, b) => a.at - b.at);
  let sumSoFar = lowSum;
  fairFrac = lbMin;
  // The sum of the targets of the levels rising at f, and how many they are (a float sum of
  // additions and removals need not come back to exactly 0).
  let slope = 0;
  let rising = 0;
  let pendingSlope = 0;
  let pendingRising = 0;
  let next = 0;
  while (sumSoFar < requiredSum) {
    // Take in every breakpoint at or below f; the first one above f bounds this linear piece.
    let nextBound: number;
    for (;;) {
      slope += pendingSlope;
      rising += pendingRising;
      if (next >= breaks.length) return { error: 'impossible: ran out of bounds to consider in bound-constrained problem' };
      const b = breaks[next++]!;
      nextBound = b.at;
      pendingSlope = b.slope;
      pendingRising = b.slope > 0 ? 1 : -1;
      if (nextBound > fairFrac) break;
    }
    if (rising === 0) {
      fairFrac = nextBound;
      continue;
    }
    const reach = fairFrac + (requiredSum - sumSoFar) / slope;
    if (reach <= nextBound) {
      fairFrac = reach;
      break;
    }
    sumSoFar += (nextBound - fairFrac) * slope;
    fairFrac = nextBound;
  }
  const f = fairFrac;
  return { allocs: items.map((item, idx) => Math.max(item.lowerBound, Math.min(item.upperBound, f * targets[idx]!))), fairFrac: f };
}
