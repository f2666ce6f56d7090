// An in-process informer over one resource store: list, then watch from the list's
// resourceVersion; when the watch ends (an error, a compacted start, storage gone), list again.
// The server's own controllers (the RBAC authorizer's index, the custom resource definitions,
// the admission policies) keep their state with it.
import type { KubeObject } from './definition.js';
import type { ResourceStore } from './resource-store.js';
import { startWatch, type ApiWatch } from './watch.js';

/** What the informer logs through (a pino Logger is one); the registry knows no logging library. */
export interface InformerLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface InformerHandlers<T extends KubeObject> {
  /** What a fresh list found: the whole state (objects not in it are gone). */
  replace(items: readonly T[]): void;
  upsert(object: T): void;
  remove(object: T): void;
}

/** How long to wait before listing again after a failure (storage down). */
const RETRY_MS = 1000;

export class StoreInformer<T extends KubeObject = KubeObject> {
  /** Whether a list has succeeded: the handlers have seen the whole state once. */
  synced = false;
  private stopped = false;
  private watch: ApiWatch | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly what: string,
    private readonly store: ResourceStore,
    private readonly handlers: InformerHandlers<T>,
    private readonly logger: InformerLogger,
  ) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let failed = false;
      try {
        const list = await this.store.list('', {});
        if (this.stopped) return;
        this.handlers.replace(list.items as T[]);
        this.synced = true;
        this.watch = await startWatch(this.store, '', { resourceVersion: list.metadata.resourceVersion }, { bookmarkIntervalMs: 60_000 });
        if (this.stopped) this.watch.stop();
        for await (const event of this.watch) {
          const object = event.object as T;
          if (event.type === 'ADDED' || event.type === 'MODIFIED') this.handlers.upsert(object);
          else if (event.type === 'DELETED') this.handlers.remove(object);
          else if (event.type === 'ERROR') {
            this.logger.info({ what: this.what, status: event.object }, 'watch ended with an error; listing again');
            break;
          }
        }
        this.watch.stop();
      } catch (error) {
        failed = true;
        if (!this.stopped) this.logger.warn({ err: error, what: this.what }, 'list or watch failed; retrying');
      }
      if (!this.stopped) await this.sleep(failed ? RETRY_MS : 0);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
