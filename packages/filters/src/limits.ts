// Request limits: requests in flight per replica (upstream's --max-requests-inflight and
// --max-mutating-requests-inflight, watches exempt), and per-user request rates shared by every
// replica through Redis, falling back to this replica's own buckets while Redis is unreachable.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RequestContext } from './context.js';
import type { ServerMetrics } from '@plat/metrics';

export interface LimitOptions {
  /** Non-mutating requests in flight at once on this replica; 0: no limit. Upstream's default 400. */
  maxRequestsInflight: number;
  /** Mutating requests in flight at once on this replica; 0: no limit. Upstream's default 200. */
  maxMutatingRequestsInflight: number;
  /** Per-user request rate; absent: none. */
  userRate?: UserRateOptions;
}

export interface UserRateOptions {
  /** Sustained requests per second per user, over all replicas (with Redis) or per replica (without). */
  qps: number;
  /** Requests a user may make at once above the sustained rate. */
  burst: number;
  /** redis://host:port[/db]: buckets shared by every replica. Absent: this replica's buckets only. */
  redisUrl?: string;
  /** Prefix of the Redis keys; default "plat:ratelimit:". */
  keyPrefix?: string;
}

/** Upstream's words for a request refused by the in-flight limits. */
export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

const nonMutatingVerbs = new Set(['get', 'list', 'watch']);

export type RequestKind = 'readOnly' | 'mutating';

/** Upstream's split: get, list and watch are read-only; everything else (POST, PUT, PATCH, DELETE) mutates. */
export function requestKind(ctx: RequestContext): RequestKind {
  const info = ctx.state.requestInfo;
  if (info.isResourceRequest) return nonMutatingVerbs.has(info.verb) ? 'readOnly' : 'mutating';
  return ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS' ? 'readOnly' : 'mutating';
}

/** Watches (and other streams) are long-running: they hold no in-flight slot. */
export const isLongRunning = (ctx: RequestContext): boolean => ctx.state.requestInfo.isResourceRequest && ctx.state.requestInfo.verb === 'watch';

/** Answers whether one more request of `user` fits its rate; when not, after how many seconds to retry. */
export interface RateDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

/** A token bucket per user in this process. */
export class LocalRateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now() / 1000,
  ) {}

  take(user: string): RateDecision {
    const now = this.now();
    const bucket = this.buckets.get(user) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.qps);
    bucket.at = now;
    this.buckets.set(user, bucket);
    if (this.buckets.size > 10_000) this.evictFull(now);
    if (bucket.tokens >= 1) {
      bucket.tokens--;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return { allowed: false, retryAfterSeconds: (1 - bucket.tokens) / this.qps };
  }

  /** Forgets users whose buckets have refilled: they behave as new ones. */
  private evictFull(now: number): void {
    for (const [user, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.qps >= this.burst) this.buckets.delete(user);
    }
  }
}

/**
 * One token bucket per user in Redis, updated atomically by this script: refill by elapsed time
 * (Redis' own clock, so replicas' clocks do not matter), take one token or say how long to wait.
 * KEYS[1] the user's bucket; ARGV qps, burst. Returns {allowed, wait seconds as a string}.
 */
const TOKEN_BUCKET_SCRIPT = `
local qps = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * qps)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = (1 - tokens) / qps
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / qps * 1000) + 1000)
return {allowed, tostring(wait)}
`;

/** How long one Redis round trip may take before the replica decides locally instead. */
const REDIS_TIMEOUT_MS = 250;
/** After a call failed on a connection that stayed up, how long until one call tries Redis again. */
const REDIS_RETRY_MS = 1000;

/**
 * Per-user rates through Redis while it answers; this replica's buckets (the same rate, so a user
 * may get up to N times its share over N replicas) while it does not. Never fails a request
 * because of Redis.
 */
export class RedisRateLimiter {
  private readonly redis: Redis;
  private readonly local: LocalRateLimiter;
  private usingRedis = false;
  private closed = false;
  /** When a call may try Redis again after one failed on a connection still up (no 'ready' follows). */
  private retryAt = 0;
  private retrying = false;

  constructor(
    private readonly options: UserRateOptions & { redisUrl: string },
    private readonly logger: Logger,
    private readonly metrics: ServerMetrics,
  ) {
    this.local = new LocalRateLimiter(options.qps, options.burst);
    metrics.rateLimitRedisAvailable.set(0);
    this.redis = new Redis(options.redisUrl, {
      // Fail at once while disconnected rather than queue: the request is decided locally.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: REDIS_TIMEOUT_MS,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
      lazyConnect: false,
    });
    this.redis.defineCommand('platTakeToken', { numberOfKeys: 1, lua: TOKEN_BUCKET_SCRIPT });
    this.redis.on('ready', () => this.setRedis(true));
    this.redis.on('close', () => this.setRedis(false, 'connection closed'));
    // Errors are reported by the state changes; without a listener ioredis prints each one.
    this.redis.on('error', (err: Error) => this.setRedis(false, err.message));
  }

  private setRedis(available: boolean, reason?: string): void {
    if (this.closed || available === this.usingRedis) return;
    this.usingRedis = available;
    this.metrics.rateLimitRedisAvailable.set(available ? 1 : 0);
    if (available) this.logger.info('rate limits: Redis reachable, per-user rates are shared by all replicas');
    else this.logger.warn({ reason }, 'rate limits: Redis unreachable, falling back to this replica\'s local per-user rates');
  }

  async take(user: string): Promise<RateDecision> {
    // A timed-out call leaves the connection up: one call at a time tries Redis again now and then.
    const retry = !this.usingRedis && !this.retrying && this.redis.status === 'ready' && performance.now() >= this.retryAt;
    if (this.usingRedis || retry) {
      if (retry) this.retrying = true;
      try {
        const [allowed, wait] = (await (this.redis as unknown as RedisWithScript).platTakeToken(
          `${this.options.keyPrefix ?? 'plat:ratelimit:'}${user}`,
          String(this.options.qps),
          String(this.options.burst),
        )) as [number, string];
        this.setRedis(true);
        return { allowed: allowed === 1, retryAfterSeconds: Number(wait) };
      } catch (err) {
        this.retryAt = performance.now() + REDIS_RETRY_MS;
        this.setRedis(false, err instanceof Error ? err.message : String(err));
      } finally {
        if (retry) this.retrying = false;
      }
    }
    this.metrics.rateLimitFallbacks.inc();
    return this.local.take(user);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.redis.disconnect();
  }
}

interface RedisWithScript {
  platTakeToken(key: string, qps: string, burst: string): Promise<unknown>;
}

export interface UserRateLimiter {
  take(user: string): RateDecision | Promise<RateDecision>;
  close?(): Promise<void>;
}

export function newUserRateLimiter(options: UserRateOptions, logger: Logger, metrics: ServerMetrics): UserRateLimiter {
  if (!(options.qps > 0) || !(options.burst >= 1)) throw new Error('per-user rate limits need qps > 0 and burst >= 1');
  if (options.redisUrl) return new RedisRateLimiter({ ...options, redisUrl: options.redisUrl }, logger, metrics);
  return new LocalRateLimiter(options.qps, options.burst);
}

