// Binary search over sorted arrays (keys, histories, event logs).

/** Index of the first element of a sorted array (from `from` on) for which `isAfter` holds. */
export function firstIndex<T>(sorted: readonly T[], isAfter: (item: T) => boolean, from = 0): number {
  let low = from;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (isAfter(sorted[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}
