// Leader election through a Lease object, with client-go's semantics: a candidate takes the lease when
// it is free or when its holder has not renewed it for leaseDuration, as measured on the candidate's
// own clock from when it last saw the record change; the leader renews every retryPeriod and gives
// up when it could not renew for renewDeadline.
//
// Unlike client-go, a candidate also watches the lease while it waits. Expiry is still judged on its
// own clock (no trust in the holder's renewTime, so clock skew cannot cut a lease short), but it sees
// each renewal within milliseconds instead of up to 2.2 retry periods later, and it tries again the
// moment the lease expires or is released. A crashed leader is therefore replaced within the lease
// duration of its last renewal, not up to two retry periods after it.
import { isStatusError, type Lease, type LeaseSpec } from '@plat/apimachinery';
import { Backoff, jitter, sleep } from './backoff.js';
import { silentLogger, type Logger } from './logger.js';
import type { ResourceClient } from './resource.js';
import type { ResourceRef } from './types.js';

/** The Lease resource of coordination.<domain>/v1. */
export const leaseResource = (domain: string): ResourceRef => ({
  group: `coordination.${domain}`,
  version: 'v1',
  resource: 'leases',
  namespaced: true,
  kind: 'Lease',
});

/** What the lock holds (client-go's LeaderElectionRecord). */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaderTransitions: number;
}

/** client-go's JitterFactor: waits between attempts to acquire are retryPeriod to 2.2 x retryPeriod. */
export const JITTER_FACTOR = 1.2;

export interface LeaderCallbacks {
  /**
   * Leadership begins; `signal` aborts when it ends. A promise returned is awaited after the abort,
   * before the lease is released, so that nothing guarded by the lease outlives it.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Leadership ended (lost or released), or run() returned without ever leading. */
  onStoppedLeading(): void;
  /** Another holder (or this one) was observed; "" when the lease is free. */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  /** The leases resource (the namespace is taken from `namespace`). */
  leases: ResourceClient<Lease>;
  namespace: string;
  name: string;
  /** Unique among candidates; client-go uses hostname_uuid. */
  identity: string;
  /** Default 15 s. */
  leaseDurationMs?: number;
  /** Default 10 s. */
  renewDeadlineMs?: number;
  /** Default 2 s. */
  retryPeriodMs?: number;
  /** When run()'s signal aborts while leading, give the lease up so another candidate need not wait. */
  releaseOnCancel?: boolean;
  callbacks: LeaderCallbacks;
  logger?: Logger;
  /** The local clock (ms). */
  now?: () => number;
}

/** A MicroTime: RFC 3339 in UTC with six fractional digits. */
export const microTime = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

function recordOf(lease: Lease): LeaderElectionRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: spec.acquireTime ?? '',
    renewTime: spec.renewTime ?? '',
    leaderTransitions: spec.leaseTransitions ?? 0,
  };
}

function specOf(record: LeaderElectionRecord): LeaseSpec {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    ...(record.acquireTime && { acquireTime: record.acquireTime }),
    ...(record.renewTime && { renewTime: record.renewTime }),
    leaseTransitions: record.leaderTransitions,
  };
}

/**
 * Whether `seen` is an older version of the lease than `known` (a watch event that raced a read).
 * Our resourceVersions are etcd revisions; anything else is never judged older.
 */
function isOlder(seen: Lease, known: Lease | undefined): boolean {
  const a = seen.metadata?.resourceVersion;
  const b = known?.metadata?.resourceVersion;
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) < BigInt(b);
}

export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private readonly logger: Logger;
  /** The lease as last read or written: its resourceVersion makes updates conditional. */
  private lease?: Lease;
  private observedRecord?: LeaderElectionRecord;
  private observedRaw = '';
  /** When (local clock) the observed record last changed. */
  private observedTime = 0;
  /** When (local clock) this candidate last wrote the lease as its holder: acquired or renewed it. */
  private renewedAt = 0;
  private reportedLeader?: string;
  /** Wakes a waiting acquire loop early (the watched lease was released or changed hands). */
  private wake?: () => void;
  /** The watch saw the lease freed or deleted while an attempt was under way: the next goes at once. */
  private freedDuringAttempt = false;

  constructor(private readonly config: LeaderElectionConfig) {
    this.leaseDurationMs = config.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = config.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = config.retryPeriodMs ?? 2_000;
    // client-go's NewLeaderElector checks.
    if (this.leaseDurationMs <= this.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (this.renewDeadlineMs <= JITTER_FACTOR * this.retryPeriodMs) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    if (this.retryPeriodMs < 1) throw new Error('retryPeriod must be greater than zero');
    if (!config.identity) throw new Error('lock identity is empty');
    this.now = config.now ?? Date.now;
    this.logger = config.logger ?? silentLogger;
  }

  private get leases(): ResourceClient<Lease> {
    return this.config.leases.namespace(this.config.namespace);
  }

  private get description(): string {
    return `${this.config.namespace}/${this.config.name}`;
  }

  /** The holder last observed; "" when none. */
  getLeader(): string {
    return this.observedRecord?.holderIdentity ?? '';
  }

  isLeader(): boolean {
    return this.getLeader() === this.config.identity;
  }

  /**
   * client-go's Check, behind the "leaderElection" health check: an Error when this candidate
   * believes it leads but has not renewed the lease for longer than a working renew loop ever lets
   * pass (a retry period's wait, then up to the renew deadline of attempts) plus `toleranceMs`.
   * Such a loop is stuck (it would otherwise have stopped leading), and the process should be
   * restarted. Candidates that do not lead are always healthy.
   */
  check(toleranceMs: number): Error | undefined {
    if (!this.isLeader()) return undefined;
    const since = this.now() - this.renewedAt;
    if (since <= this.retryPeriodMs + this.renewDeadlineMs + toleranceMs) return undefined;
    return new Error(`failed election to renew leadership on lease ${this.config.name}`);
  }

  private isLeaseValid(now: number): boolean {
    return this.observedTime + this.leaseDurationMs > now;
  }

  private setObserved(record: LeaderElectionRecord, lease?: Lease): void {
    this.observedRecord = record;
    this.observedRaw = JSON.stringify(record);
    this.observedTime = this.now();
    if (lease) this.lease = lease;
  }

  /**
   * Campaigns until leading, leads until leadership is lost or `signal` aborts, then returns.
   * onStoppedLeading is called on the way out, as client-go's Run does.
   */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return;
      const leading = new AbortController();
      const abortLeading = (): void => leading.abort();
      signal.addEventListener('abort', abortLeading, { once: true });
      let work: void | Promise<void> = undefined;
      try {
        work = this.config.callbacks.onStartedLeading(leading.signal);
        await this.renew(signal);
      } finally {
        signal.removeEventListener('abort', abortLeading);
        leading.abort();
        await Promise.resolve(work).catch((err: unknown) => this.logger.error({ err }, 'the leader\'s work failed'));
      }
      if (signal.aborted && this.config.releaseOnCancel) await this.release();
    } finally {
      this.config.callbacks.onStoppedLeading();
    }
  }

  /**
   * Tries until the lease is ours; false if `signal` aborted first. Between attempts it waits a
   * jittered retryPeriod, or less: until the observed lease expires, or until the watch sees it freed.
   */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger.info({ lease: this.description, identity: this.config.identity }, 'attempting to acquire leader lease');
    const watching = new AbortController();
    const stopWatching = (): void => watching.abort();
    signal.addEventListener('abort', stopWatching, { once: true });
    const watcher = this.watchLease(watching.signal);
    try {
      while (!signal.aborted) {
        this.freedDuringAttempt = false;
        const acquired = await this.tryAcquireOrRenew();
        this.maybeReportTransition();
        if (acquired) {
          this.logger.info({ lease: this.description, identity: this.config.identity }, 'successfully acquired lease');
          return true;
        }
        await this.waitForNextAttempt(signal);
      }
      return false;
    } finally {
      signal.removeEventListener('abort', stopWatching);
      watching.abort();
      await watcher;
    }
  }

  private async waitForNextAttempt(signal: AbortSignal): Promise<void> {
    // Freed before this wait began, there was nothing to wake: try again now.
    if (this.freedDuringAttempt) return;
    let wait = jitter(this.retryPeriodMs, JITTER_FACTOR);
    if (this.observedRecord?.holderIdentity) {
      // One millisecond past expiry, so that isLeaseValid is false when the attempt runs.
      wait = Math.min(wait, Math.max(0, this.observedTime + this.leaseDurationMs - this.now() + 1));
    }
    const woken = new AbortController();
    const abort = (): void => woken.abort();
    signal.addEventListener('abort', abort, { once: true });
    this.wake = abort;
    try {
      await sleep(wait, woken.signal);
    } finally {
      this.wake = undefined;
      signal.removeEventListener('abort', abort);
    }
  }

  /**
   * Follows the lease while campaigning: each change is observed (and timed) as it happens. A lease
   * that is freed, deleted or expired wakes the acquire loop. Errors only slow it down: polling goes on.
   */
  private async watchLease(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff({ initialMs: 200, maxMs: this.retryPeriodMs, jitter: 0.2, resetAfterMs: 2 * this.retryPeriodMs });
    while (!signal.aborted) {
      try {
        const stream = await this.leases.watch({ fieldSelector: `metadata.name=${this.config.name}` });
        const stop = (): void => stream.stop();
        signal.addEventListener('abort', stop, { once: true });
        try {
          for await (const event of stream) {
            if (event.type === 'DELETED') {
              this.freedDuringAttempt = true;
              this.wake?.();
              continue;
            }
            if (event.type !== 'ADDED' && event.type !== 'MODIFIED') continue;
            if (isOlder(event.object, this.lease)) continue;
            const record = recordOf(event.object);
            if (JSON.stringify(record) === this.observedRaw) continue;
            this.setObserved(record, event.object);
            this.maybeReportTransition();
            if (!record.holderIdentity) {
              this.freedDuringAttempt = true;
              this.wake?.();
            }
          }
        } finally {
          signal.removeEventListener('abort', stop);
        }
      } catch (err) {
        if (signal.aborted) return;
        this.logger.debug({ err, lease: this.description }, 'the lease watch ended; watching again');
      }
      if (!signal.aborted) await sleep(backoff.step(), signal);
    }
  }

  /** Renews every retryPeriod; returns when a renewal could not be made within renewDeadline, or on abort. */
  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const deadline = this.now() + this.renewDeadlineMs;
      let renewed = false;
      while (!signal.aborted && this.now() < deadline) {
        renewed = await this.tryAcquireOrRenew(deadline - this.now());
        this.maybeReportTransition();
        if (renewed) break;
        await sleep(Math.min(this.retryPeriodMs, Math.max(0, deadline - this.now())), signal);
      }
      if (signal.aborted) return;
      if (!renewed) {
        this.logger.info({ lease: this.description }, 'failed to renew lease: timed out waiting for the condition');
        return;
      }
      await sleep(this.retryPeriodMs, signal);
    }
  }

  /** Gives the lease up: a holder "" and a one-second duration, as client-go's release. */
  private async release(): Promise<boolean> {
    if (!this.isLeader() || !this.lease) return true;
    const at = microTime(this.now());
    const record: LeaderElectionRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: at,
      renewTime: at,
      leaderTransitions: this.observedRecord?.leaderTransitions ?? 0,
    };
    try {
      this.setObserved(record, await this.update(record, this.retryPeriodMs));
      this.logger.info({ lease: this.description }, 'released the lease');
      return true;
    } catch (err) {
      this.logger.error({ err, lease: this.description }, 'failed to release the lease');
      return false;
    }
  }

  private update(record: LeaderElectionRecord, timeoutMs: number): Promise<Lease> {
    const lease = this.lease!;
    return this.leases.rest
      .request<Lease>({
        method: 'PUT',
        path: this.leases.path(this.config.name),
        body: { apiVersion: this.leases.apiVersion, kind: 'Lease', ...lease, spec: specOf(record) },
        timeoutMs,
      });
  }

  /** One attempt to take or keep the lease (client-go's tryAcquireOrRenew). */
  async tryAcquireOrRenew(timeoutMs = this.renewDeadlineMs): Promise<boolean> {
    const now = this.now();
    const record: LeaderElectionRecord = {
      holderIdentity: this.config.identity,
      leaseDurationSeconds: Math.round(this.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaderTransitions: 0,
    };

    // 1. The leader updates optimistically, assuming the record it saw last is still current.
    if (this.isLeader() && this.isLeaseValid(now) && this.lease) {
      record.acquireTime = this.observedRecord!.acquireTime;
      record.leaderTransitions = this.observedRecord!.leaderTransitions;
      try {
        this.setObserved(record, await this.update(record, timeoutMs));
        this.renewedAt = this.now();
        return true;
      } catch (err) {
        this.logger.warn({ err, lease: this.description }, 'failed to update the lease optimistically; falling back to the slow path');
      }
    }

    // 2. Read the lease, or create it.
    let current: Lease;
    try {
      current = await this.leases.rest.request<Lease>({ path: this.leases.path(this.config.name), timeoutMs });
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404) {
        this.logger.warn({ err, lease: this.description }, 'error retrieving the lease');
        return false;
      }
      try {
        const created = await this.leases.rest.request<Lease>({
          method: 'POST',
          path: this.leases.path(),
          body: { apiVersion: this.leases.apiVersion, kind: 'Lease', metadata: { name: this.config.name, namespace: this.config.namespace }, spec: specOf(record) },
          timeoutMs,
        });
        this.setObserved(record, created);
        this.renewedAt = this.now();
        return true;
      } catch (createErr) {
        this.logger.warn({ err: createErr, lease: this.description }, 'error creating the lease');
        return false;
      }
    }

    // 3. Another holder whose lease has not expired on our clock keeps it. A read that began before
    // the watch brought a renewal can answer after it, with the record before: that one is not
    // observed again (it would restart the expiry's clock at now, and then the renewal once more at
    // the next attempt: a takeover a retry period late), and the newer lease stands.
    if (isOlder(current, this.lease)) current = this.lease!;
    const old = recordOf(current);
    this.lease = current;
    if (JSON.stringify(old) !== this.observedRaw) this.setObserved(old);
    if (old.holderIdentity && this.isLeaseValid(now) && !this.isLeader()) {
      this.logger.debug({ lease: this.description, holder: old.holderIdentity }, 'the lease is held by another candidate and has not expired');
      return false;
    }

    // 4. Take it over, or renew it after a failed fast path.
    if (this.isLeader()) {
      record.acquireTime = old.acquireTime;
      record.leaderTransitions = old.leaderTransitions;
    } else {
      record.leaderTransitions = old.leaderTransitions + 1;
    }
    try {
      this.setObserved(record, await this.update(record, timeoutMs));
      this.renewedAt = this.now();
      return true;
    } catch (err) {
      this.logger.warn({ err, lease: this.description }, 'failed to update the lease');
      return false;
    }
  }

  private maybeReportTransition(): void {
    const leader = this.getLeader();
    if (leader === this.reportedLeader) return;
    this.reportedLeader = leader;
    this.config.callbacks.onNewLeader?.(leader);
  }
}
