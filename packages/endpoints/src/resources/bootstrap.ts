// Objects every cluster has from the start (the system namespaces), created idempotently so that
// several replicas starting at once, or a restart, all end with one of each.
import { isStatusError } from '@plat/apimachinery';
import type { KubeObject } from '@plat/registry';
import type { Logger } from 'pino';
import type { HealthCheck } from '@plat/filters';
import type { ResourceCatalog } from './catalog.js';

export interface BootstrapObject {
  group: string;
  version: string;
  resource: string;
  object: KubeObject;
}

const RETRY_MS = 1000;

/** Creates the objects in the background, retrying while storage is unavailable. */
export class Bootstrapper implements HealthCheck {
  readonly name = 'poststarthook/bootstrap-objects';
  private done = false;
  private lastError: unknown = new Error('not finished');
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private finished!: () => void;
  /** Resolves once every object exists (never, if stopped first). */
  readonly whenDone = new Promise<void>((resolve) => (this.finished = resolve));

  constructor(
    private readonly catalog: ResourceCatalog,
    private readonly objects: readonly BootstrapObject[],
    private readonly logger: Logger,
  ) {}

  start(): void {
    void this.attempt();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async attempt(): Promise<void> {
    try {
      for (const { group, version, resource, object } of this.objects) {
        const store = this.catalog.store(group, version, resource);
        try {
          await store.create(object.metadata.namespace ?? '', structuredClone(object));
          this.logger.info({ resource, name: object.metadata.name }, 'created bootstrap object');
        } catch (error) {
          if (!(isStatusError(error) && error.status.reason === 'AlreadyExists')) throw error;
        }
      }
      this.done = true;
      this.finished();
    } catch (error) {
      this.lastError = error;
      this.logger.warn({ err: error }, 'creating bootstrap objects failed; retrying');
      if (!this.stopped) this.timer = setTimeout(() => void this.attempt(), RETRY_MS);
    }
  }

  async check(): Promise<void> {
    if (!this.done) throw this.lastError instanceof Error ? this.lastError : new Error(String(this.lastError));
  }
}
