// Records core v1 Events the way client-go's tools/record does: `event()` never waits and never
// fails (a controller's work must not depend on its reports); events queue (at most 1,000, the
// rest dropped), pass the correlator (aggregation, deduplication, the spam filter), and are written
// one at a time: created, or, when the same event comes again, its count and lastTimestamp PATCHed
// (strategic merge) onto the one written before; created anew when that one has expired. A write
// the server refuses is dropped; one that never reached it is tried again, 12 times 10 s apart.
import { isStatusError } from '@plat/apimachinery';
import type { Client } from '../client.js';
import type { Logger } from '../logger.js';
import type { KubeObject, ResourceRef } from '../types.js';
import { EventCorrelator, nanoHex, type CoreEvent, type CorrelatorOptions, type ObjectReference } from './event-correlator.js';

export type { ObjectReference, CoreEvent };

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  /** The component that reports (the event's source.component and reportingComponent). */
  component: string;
  /** Its instance, when it has one (a node's name for a node agent): source.host and reportingInstance. */
  host?: string;
  logger: Logger;
  correlator?: CorrelatorOptions;
  /** Queued events beyond which new ones are dropped (upstream's 1,000). */
  maxQueued?: number;
  /** Tries of a write that does not reach the server (upstream's 12), and the wait between them. */
  maxTries?: number;
  retryDelayMs?: number;
  now?: () => number;
}

const EVENTS: ResourceRef = { group: '', version: 'v1', resource: 'events', namespaced: true, kind: 'Event' };

/** A reference to `object`, whose apiVersion and kind are given where it may lack them (a list's items do). */
export function referenceTo(object: KubeObject, apiVersion = object.apiVersion, kind = object.kind): ObjectReference {
  const { name, namespace, uid, resourceVersion } = object.metadata;
  return {
    ...(kind && { kind }),
    ...(namespace && { namespace }),
    ...(name && { name }),
    ...(uid && { uid }),
    ...(apiVersion && { apiVersion }),
    ...(resourceVersion && { resourceVersion }),
  };
}

export class EventRecorder {
  private readonly queue: CoreEvent[] = [];
  private readonly correlator: EventCorrelator;
  private draining: Promise<void> | undefined;
  private stopped = false;
  private lastNanos = 0n;
  private readonly wake = new Set<() => void>();

  constructor(
    private readonly client: Client,
    private readonly options: EventRecorderOptions,
  ) {
    this.correlator = new EventCorrelator({ ...options.correlator, ...(options.now && { now: options.now }) });
  }

  /** Records that `reason` happened to the object `regarding` refers to; returns at once. */
  event(regarding: ObjectReference, type: EventType, reason: string, message: string): void {
    if (this.stopped) return;
    if (this.queue.length >= (this.options.maxQueued ?? 1000)) {
      this.options.logger.error({ reason, object: regarding }, 'too many queued events: event dropped');
      return;
    }
    this.queue.push(this.makeEvent(regarding, type, reason, message));
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  /** Resolves once every queued event has been written or dropped (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Drops what is queued and writes nothing more; a write under way is not waited for. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    for (const wake of this.wake) wake();
  }

  private makeEvent(regarding: ObjectReference, type: EventType, reason: string, message: string): CoreEvent {
    const now = (this.options.now ?? Date.now)();
    const at = `${new Date(now).toISOString().slice(0, 19)}Z`;
    const { component, host } = this.options;
    return {
      metadata: { name: `${regarding.name ?? ''}.${this.uniqueSuffix(now)}`, namespace: regarding.namespace || 'default' },
      involvedObject: regarding,
      reason,
      message,
      source: { component, ...(host && { host }) },
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
      type,
      reportingComponent: component,
      reportingInstance: host ?? '',
    };
  }

  /** The time in nanoseconds as hex, one more than the last when the clock has not moved: names never collide. */
  private uniqueSuffix(now: number): string {
    let nanos = BigInt(`0x${nanoHex(now)}`);
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    return nanos.toString(16);
  }

  private async drain(): Promise<void> {
    for (let event = this.queue.shift(); event && !this.stopped; event = this.queue.shift()) {
      const correlated = this.correlator.correlate(event);
      if (correlated.skip) continue;
      await this.write(correlated.event, correlated.patch, correlated.key);
    }
  }

  private async write(event: CoreEvent, patch: { count: number; lastTimestamp: string; message: string } | undefined, key: string): Promise<void> {
    const events = this.client.resource<CoreEvent>(EVENTS).namespace(event.metadata.namespace!);
    const maxTries = this.options.maxTries ?? 12;
    for (let tries = 1; !this.stopped; tries++) {
      try {
        let written: CoreEvent | undefined;
        if (patch) {
          written = await events.patch(event.metadata.name!, 'strategic', patch).catch((error: unknown) => {
            // The event it would update has expired (or was deleted): record it anew.
            if (isStatusError(error) && error.code === 404) return undefined;
            throw error;
          });
        }
        if (!written) {
          const { resourceVersion: _version, ...metadata } = event.metadata;
          written = await events.create({ ...event, metadata });
        }
        this.correlator.updateState(key, written);
        return;
      } catch (error) {
        if (isStatusError(error)) {
          // Refused by the server: trying again would be refused again. A namespace being deleted
          // refuses events in it, which is expected, not worth a warning.
          const terminating = error.status.details?.causes?.some((cause) => cause.reason === 'NamespaceTerminating') ?? false;
          const log = terminating ? this.options.logger.debug.bind(this.options.logger) : this.options.logger.warn.bind(this.options.logger);
          log({ err: error, reason: event.reason, object: event.involvedObject }, 'server rejected event (will not retry)');
          return;
        }
        if (tries >= maxTries) {
          this.options.logger.error({ err: error, reason: event.reason, object: event.involvedObject }, 'unable to write event (retry limit exceeded)');
          return;
        }
        // The first wait is random, so that clients that lost the server together do not return together.
        const delay = this.options.retryDelayMs ?? 10_000;
        await this.sleep(tries === 1 ? Math.random() * delay : delay);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake.add(done);
    });
  }
}
