// Health endpoints (/healthz, /livez, /readyz) in kube-apiserver's format: `ok`, or with ?verbose
// one `[+]check ok` line per check; on failure always verbose, with HTTP 500.
import { goQuote } from '@plat/apimachinery';
import type { Storage } from '@plat/storage';
import type { Logger } from 'pino';
import type { Handler, RequestContext } from './context.js';

export interface HealthCheck {
  readonly name: string;
  /** Resolves when healthy; rejects with the reason otherwise. Called afresh for every probe. */
  check(): Promise<void>;
}

export const pingCheck: HealthCheck = { name: 'ping', check: async () => {} };

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  // The slow call may still fail after we stopped waiting; that is not an unhandled rejection.
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The storage check, named `etcd` as upstream names it whatever the backend. */
export function storageCheck(storage: Storage, timeoutMs: number): HealthCheck {
  return {
    name: 'etcd',
    check: () => withTimeout(storage.checkHealth(), timeoutMs, `storage did not answer within ${timeoutMs / 1000}s`),
  };
}

/** Fails once graceful shutdown has begun, so that load balancers stop sending new requests. */
export class ShutdownCheck implements HealthCheck {
  readonly name = 'shutdown';
  private begun = false;

  begin(): void {
    this.begun = true;
  }

  async check(): Promise<void> {
    if (this.begun) throw new Error('process is shutting down');
  }
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function writeText(ctx: RequestContext, status: number, text: string): void {
  ctx.status = status;
  ctx.body = text;
  ctx.set('Content-Type', 'text/plain; charset=utf-8');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/** The handler of `/<endpoint>` running every check, honouring ?verbose and ?exclude=<check>. */
export function healthHandler(endpoint: string, checks: readonly HealthCheck[], logger: Logger): Handler {
  return async (ctx) => {
    const query = new URLSearchParams(ctx.querystring);
    const excluded = new Set(query.getAll('exclude'));
    const results = await Promise.all(
      checks.map(async (check): Promise<{ line: string; failed: boolean }> => {
        if (excluded.has(check.name)) return { line: `[+]${check.name} excluded: ok\n`, failed: false };
        try {
          await check.check();
          return { line: `[+]${check.name} ok\n`, failed: false };
        } catch (error) {
          logger.warn({ endpoint, check: check.name, reason: reasonOf(error) }, `${endpoint} check failed`);
          return { line: `[-]${check.name} failed: ${reasonOf(error)}\n`, failed: true };
        }
      }),
    );
    let output = results.map((r) => r.line).join('');
    const unmatched = [...excluded].filter((name) => !checks.some((c) => c.name === name)).sort();
    if (unmatched.length) {
      output += `warn: some health checks cannot be excluded: no matches for ${unmatched.map(goQuote).join(',')}\n`;
    }
    if (results.some((r) => r.failed)) writeText(ctx, 500, `${output}${endpoint} check failed\n`);
    else if (query.has('verbose')) writeText(ctx, 200, `${output}${endpoint} check passed\n`);
    else writeText(ctx, 200, 'ok');
  };
}

/** The handler of `/<endpoint>/<check>`: just that check, its reason in the body when it fails. */
export function singleCheckHandler(check: HealthCheck, logger: Logger): Handler {
  return async (ctx) => {
    try {
      await check.check();
      writeText(ctx, 200, 'ok');
    } catch (error) {
      logger.warn({ check: check.name, reason: reasonOf(error) }, 'health check failed');
      writeText(ctx, 500, `internal server error: ${reasonOf(error)}\n`);
    }
  };
}
