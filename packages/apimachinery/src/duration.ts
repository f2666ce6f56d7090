// Durations written as Go writes them (`5m`, `1h30m`, `250ms`): flags and config files use this form.

const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3, // U+00B5 micro sign
  'μs': 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const segment = /^(\d*)(?:\.(\d*))?([^\d.]+)/;

/** Parses a Go duration (time.ParseDuration) into milliseconds; throws with Go's message when invalid. */
export function parseDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new Error(`time: invalid duration ${quoted}`);
  let total = 0;
  while (rest) {
    const match = segment.exec(rest);
    if (!match) {
      throw new Error(/^\d*\.?\d*$/.test(rest) && /\d/.test(rest) ? `time: missing unit in duration ${quoted}` : `time: invalid duration ${quoted}`);
    }
    const [whole, int = '', frac = '', unit = ''] = match;
    if (!int && !frac) throw new Error(`time: invalid duration ${quoted}`);
    const ms = unitMs[unit];
    if (ms === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    total += Number(`${int || '0'}.${frac || '0'}`) * ms;
    rest = rest.slice(whole.length);
  }
  return sign * total;
}

/** Formats milliseconds as Go's Duration.String does: `5m0s`, `1h30m0s`, `1.5s`, `250ms`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms < 1000) {
    if (ms >= 1) return `${trim(ms)}ms`;
    if (ms >= 1e-3) return `${trim(ms * 1e3)}µs`;
    return `${trim(ms * 1e6)}ns`;
  }
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return `${hours ? `${hours}h` : ''}${hours || minutes ? `${minutes}m` : ''}${trim(seconds)}s`;
}

// Nine significant decimals at most, as Go keeps nanoseconds, without trailing zeros.
const trim = (n: number): string => String(Number(n.toFixed(9)));
