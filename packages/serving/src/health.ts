// Health endpoints (/healthz, /livez, /readyz) in kube-apiserver's format, for any server: `ok`, or
// with ?verbose one `[+]check ok` line per check; on failure always verbose, with HTTP 500. The
// apiserver (koa) and the controller-manager (node:https) write these reports each their own way.
import { goQuote } from '@plat/apimachinery';

export interface HealthCheck {
  readonly name: string;
  /** Resolves when healthy; rejects with the reason otherwise. Called afresh for every probe. */
  check(): Promise<void>;
}

export const pingCheck: HealthCheck = { name: 'ping', check: async () => {} };

export interface HealthReport {
  status: 200 | 500;
  /** text/plain; charset=utf-8. */
  body: string;
  /** The checks that failed, with their reasons, for the server's log. */
  failures: { check: string; reason: string }[];
  /** Every check run (excluded ones are not), and whether it passed: for the health metrics. */
  results: { check: string; healthy: boolean }[];
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** `/<endpoint>`: every check at once, honouring ?verbose and ?exclude=<check>. */
export async function runHealthChecks(endpoint: string, checks: readonly HealthCheck[], query: URLSearchParams): Promise<HealthReport> {
  const excluded = new Set(query.getAll('exclude'));
  const failures: HealthReport['failures'] = [];
  const results = checks.filter((check) => !excluded.has(check.name)).map((check) => ({ check: check.name, healthy: true }));
  const lines = await Promise.all(
    checks.map(async (check): Promise<string> => {
      if (excluded.has(check.name)) return `[+]${check.name} excluded: ok\n`;
      try {
        await check.check();
        return `[+]${check.name} ok\n`;
      } catch (error) {
        failures.push({ check: check.name, reason: reasonOf(error) });
        return `[-]${check.name} failed: ${reasonOf(error)}\n`;
      }
    }),
  );
  let output = lines.join('');
  const unmatched = [...excluded].filter((name) => !checks.some((c) => c.name === name)).sort();
  if (unmatched.length) {
    output += `warn: some health checks cannot be excluded: no matches for ${unmatched.map(goQuote).join(',')}\n`;
  }
  for (const result of results) result.healthy = !failures.some((failure) => failure.check === result.check);
  if (failures.length) return { status: 500, body: `${output}${endpoint} check failed\n`, failures, results };
  if (query.has('verbose')) return { status: 200, body: `${output}${endpoint} check passed\n`, failures, results };
  return { status: 200, body: 'ok', failures, results };
}

/** `/<endpoint>/<check>`: just that check, its reason in the body when it fails. */
export async function runHealthCheck(check: HealthCheck): Promise<HealthReport> {
  try {
    await check.check();
    return { status: 200, body: 'ok', failures: [], results: [{ check: check.name, healthy: true }] };
  } catch (error) {
    const reason = reasonOf(error);
    return { status: 500, body: `internal server error: ${reason}\n`, failures: [{ check: check.name, reason }], results: [{ check: check.name, healthy: false }] };
  }
}
