// The RBAC authorization mode: @plat/auth's index of Roles, ClusterRoles and their bindings, kept
// current by one list-then-watch per kind through the registry stores, so that a grant made
// through any replica takes effect on every replica as soon as its watch event arrives.
import { authorize, rulesReview, RbacIndex, type ClusterRole, type ClusterRoleBinding, type RbacKind, type RbacObjects } from '@plat/auth';
import { startWatch, type ApiWatch, type KubeObject, type ResourceStore } from '@plat/registry';
import type { Logger } from 'pino';
import type { Authorizer } from '../authorization.js';
import type { AccessAttributes, AccessDecision, AccessRules } from '@plat/apimachinery';
import type { HealthCheck } from '../health.js';
import type { ResourceCatalog } from '../resources/catalog.js';
import type { UserInfo } from '../user.js';

const RBAC_RESOURCES: Record<RbacKind, string> = {
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Role: 'roles',
  RoleBinding: 'rolebindings',
};

/** How long to wait before listing again after a failure (storage down). */
const RETRY_MS = 1000;

export interface RbacSeed {
  clusterRoles: readonly ClusterRole[];
  clusterRoleBindings: readonly ClusterRoleBinding[];
}

/** Keeps the objects of one kind in the index: list, then watch from the list's version; on any end, list again. */
class RbacInformer {
  synced = false;
  private stopped = false;
  private watch: ApiWatch | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly kind: RbacKind,
    private readonly store: ResourceStore,
    private readonly index: RbacIndex,
    private readonly logger: Logger,
  ) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    this.wake?.();
  }

  private upsert(object: unknown): void {
    // Copied: the index keeps what it is given, and the store may hand the same object to others.
    this.index.upsert(this.kind, structuredClone(object) as RbacObjects[RbacKind]);
  }

  /** Makes the index's objects of this kind exactly `items` (what a fresh list found). */
  private replace(items: readonly KubeObject[]): void {
    const key = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;
    const listed = new Set(items.map((item) => key(item.metadata.namespace, item.metadata.name)));
    for (const old of this.index.list(this.kind)) {
      const { namespace, name } = old.metadata ?? {};
      if (!listed.has(key(namespace, name))) this.index.remove(this.kind, namespace ?? '', name ?? '');
    }
    for (const item of items) this.upsert(item);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let failed = false;
      try {
        const list = await this.store.list('', {});
        if (this.stopped) return;
        this.replace(list.items);
        this.synced = true;
        this.watch = await startWatch(this.store, '', { resourceVersion: list.metadata.resourceVersion }, { bookmarkIntervalMs: 60_000 });
        if (this.stopped) this.watch.stop();
        for await (const event of this.watch) {
          const object = event.object as KubeObject;
          if (event.type === 'ADDED' || event.type === 'MODIFIED') this.upsert(object);
          else if (event.type === 'DELETED') this.index.remove(this.kind, object.metadata.namespace ?? '', object.metadata.name ?? '');
          else if (event.type === 'ERROR') {
            // A compacted start or a storage failure: the next list starts afresh.
            this.logger.info({ kind: this.kind, status: event.object }, 'RBAC watch ended with an error; listing again');
            break;
          }
        }
        this.watch.stop();
      } catch (error) {
        failed = true;
        if (!this.stopped) this.logger.warn({ err: error, kind: this.kind }, 'RBAC list or watch failed; retrying');
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

/**
 * Upstream's RBAC authorizer over a watched index. Until the first list of a kind succeeds, the
 * index holds the bootstrap policy's objects (the seed), so that anonymous health checks and
 * discovery work while storage is still unreachable.
 */
export class RbacAuthorizer implements Authorizer, HealthCheck {
  readonly name = 'poststarthook/rbac-informers-synced';
  readonly index: RbacIndex;
  private readonly informers: RbacInformer[];

  constructor(catalog: ResourceCatalog, domain: string, logger: Logger, seed: RbacSeed = { clusterRoles: [], clusterRoleBindings: [] }) {
    this.index = new RbacIndex({ domain });
    for (const role of seed.clusterRoles) this.index.upsert('ClusterRole', structuredClone(role));
    for (const binding of seed.clusterRoleBindings) this.index.upsert('ClusterRoleBinding', structuredClone(binding));
    const group = `rbac.authorization.${domain}`;
    this.informers = (Object.keys(RBAC_RESOURCES) as RbacKind[]).map(
      (kind) => new RbacInformer(kind, catalog.store(group, 'v1', RBAC_RESOURCES[kind]), this.index, logger),
    );
  }

  start(): void {
    for (const informer of this.informers) informer.start();
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
  }

  async check(): Promise<void> {
    if (!this.synced) throw new Error('RBAC objects not listed yet');
  }

  get synced(): boolean {
    return this.informers.every((informer) => informer.synced);
  }

  authorize(attributes: AccessAttributes): AccessDecision {
    return authorize(this.index, attributes);
  }

  rulesFor(user: UserInfo, namespace: string): AccessRules {
    return rulesReview(this.index, user, namespace);
  }
}
