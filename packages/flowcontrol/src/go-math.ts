// Go's math.Round: half away from zero (JavaScript's Math.round rounds half toward +∞).
export function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}
