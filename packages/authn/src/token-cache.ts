// A token authenticator's answers kept for a while (upstream's cached token authenticator, which
// kube-apiserver puts around the token webhook for --authentication-token-webhook-cache-ttl):
// tokens that authenticate are kept for the success TTL, tokens that do not for the failure TTL;
// failures with an error (the webhook unreachable) are not kept unless asked. Tokens are keyed by
// an HMAC under a key of this process, with the audiences asked for, so that the cache holds no
// token. Concurrent lookups of one token share one fetch. Observed as upstream's
// authentication_token_cache_* metrics.
import { createHmac, randomBytes } from 'node:crypto';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { MetricsStability } from '@plat/serving';
import type { TokenAuthentication, TokenAuthenticator } from './authentication.js';
import { ExpiringCache } from './expiring-cache.js';

export interface TokenCacheOptions {
  successTtlMs: number;
  failureTtlMs: number;
  /** Keep failures that carry an error too (upstream's cacheErrs); default false. */
  cacheErrors?: boolean;
  /** Where the cache's metrics are declared; absent: none. */
  stability?: MetricsStability;
  now?: () => number;
}

/** What one fetch concluded: a user, no user, or an error. */
type Outcome = { result: TokenAuthentication | undefined } | { error: Error };

// Upstream's bound: 32 stripes of 4096 entries.
const MAX_ENTRIES = 32 * 4096;

interface TokenCacheMetrics {
  requests: Counter<'status'>;
  duration: Histogram<'status'>;
  fetches: Counter<'status'>;
  active: Gauge<'status'>;
}

function declareMetrics(stability: MetricsStability): TokenCacheMetrics {
  const alpha = (help: string) => stability.declare(help, { stabilityLevel: 'ALPHA' });
  return {
    requests: new Counter({
      name: 'authentication_token_cache_request_total',
      ...alpha('Token authentications answered by the token cache, by status: hit (a kept answer) or miss (fetched from the authenticator).'),
      labelNames: ['status'],
    }),
    duration: new Histogram({
      name: 'authentication_token_cache_request_duration_seconds',
      ...alpha('Latency of token authentications through the token cache in seconds, by status (hit, miss).'),
      labelNames: ['status'],
    }),
    fetches: new Counter({
      name: 'authentication_token_cache_fetch_total',
      ...alpha('Fetches the token cache made of the authenticator behind it, by status: ok or error.'),
      labelNames: ['status'],
    }),
    active: new Gauge({
      name: 'authentication_token_cache_active_fetch_count',
      ...alpha('Fetches of the token cache under way (in_flight) and lookups waiting for one (blocked).'),
      labelNames: ['status'],
    }),
  };
}

export class CachedTokenAuthenticator implements TokenAuthenticator {
  private readonly cache: ExpiringCache<Outcome>;
  private readonly inFlight = new Map<string, Promise<Outcome>>();
  private readonly hmacKey = randomBytes(32);
  private readonly metrics?: TokenCacheMetrics;

  constructor(
    private readonly inner: TokenAuthenticator,
    private readonly options: TokenCacheOptions,
  ) {
    this.cache = new ExpiringCache(MAX_ENTRIES, options.now);
    if (options.stability) this.metrics = declareMetrics(options.stability);
  }

  private key(token: string, audiences: readonly string[]): string {
    const hmac = createHmac('sha256', this.hmacKey);
    // Length-prefixed, so that no two lists of audiences write the same bytes.
    for (const audience of audiences) hmac.update(`${audience.length}:${audience}`);
    return hmac.update(`|${token}`).digest('base64');
  }

  async authenticateToken(token: string, audiences: readonly string[]): Promise<TokenAuthentication | undefined> {
    const started = performance.now();
    const key = this.key(token, audiences);
    let outcome = this.cache.get(key);
    const hit = outcome !== undefined;
    outcome ??= await this.fetch(key, token, audiences);
    const status = hit ? 'hit' : 'miss';
    this.metrics?.requests.inc({ status });
    this.metrics?.duration.observe({ status }, (performance.now() - started) / 1000);
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }

  private async fetch(key: string, token: string, audiences: readonly string[]): Promise<Outcome> {
    const shared = this.inFlight.get(key);
    if (shared) {
      this.metrics?.active.inc({ status: 'blocked' });
      try {
        return await shared;
      } finally {
        this.metrics?.active.dec({ status: 'blocked' });
      }
    }
    const fetching = this.fetchOnce(key, token, audiences);
    this.inFlight.set(key, fetching);
    try {
      return await fetching;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async fetchOnce(key: string, token: string, audiences: readonly string[]): Promise<Outcome> {
    this.metrics?.active.inc({ status: 'in_flight' });
    let outcome: Outcome;
    try {
      outcome = { result: await this.inner.authenticateToken(token, audiences) };
    } catch (error) {
      outcome = { error: error instanceof Error ? error : new Error(String(error)) };
    } finally {
      this.metrics?.active.dec({ status: 'in_flight' });
    }
    this.metrics?.fetches.inc({ status: 'error' in outcome ? 'error' : 'ok' });
    if ('result' in outcome && outcome.result) this.cache.set(key, outcome, this.options.successTtlMs);
    else if ('result' in outcome || this.options.cacheErrors) this.cache.set(key, outcome, this.options.failureTtlMs);
    return outcome;
  }
}
