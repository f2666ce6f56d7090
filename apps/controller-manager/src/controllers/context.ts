// What every controller is given, and the helpers they share.
import { isStatusError } from '@plat/apimachinery';
import type { Client, EventRecorder, InformerFactory, Logger, RateLimitingQueue } from '@plat/client';
import type { ResourceMap } from '../resources.js';

export interface ControllerContext {
  client: Client;
  /** Shared informers: a resource asked for by several controllers is watched once. */
  informers: InformerFactory;
  resources: ResourceMap;
  domain: string;
  logger: Logger;
  /** A new work queue under upstream's name for it, reporting to the controller-manager's metrics. */
  workQueue<K>(name: string): RateLimitingQueue<K>;
  /** Records Events as this controller (its name the source component), with its own client. */
  events: EventRecorder;
}

/** A controller runs until `signal` aborts; it resolves once its workers have stopped. */
export type Controller = (context: ControllerContext, signal: AbortSignal) => Promise<void>;

export const isNotFound = (error: unknown): boolean => isStatusError(error) && error.code === 404;
const isConflict = (error: unknown): boolean => isStatusError(error) && error.code === 409;
export const isAlreadyExists = (error: unknown): boolean => isStatusError(error, 'AlreadyExists');

/** Runs `attempt` again while it fails with a 409 (client-go's retry.RetryOnConflict: 5 tries). */
export async function retryOnConflict<T>(attempt: () => Promise<T>, tries = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || i >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * i));
    }
  }
}

/** Resolves when the signal aborts. */
export const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));

/** True once every informer has synced; false if the signal aborted first. */
export async function waitForSync(signal: AbortSignal, ...informers: { waitForSync(signal?: AbortSignal): Promise<boolean> }[]): Promise<boolean> {
  const results = await Promise.all(informers.map((informer) => informer.waitForSync(signal)));
  return results.every(Boolean);
}
