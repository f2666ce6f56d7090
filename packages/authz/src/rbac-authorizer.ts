// The RBAC authorization mode: @plat/auth's index of Roles, ClusterRoles and their bindings, kept
// current by one list-then-watch per kind through the registry stores, so that a grant made
// through any replica takes effect on every replica as soon as its watch event arrives.
import { authorize, rulesReview, RbacIndex, type ClusterRole, type ClusterRoleBinding, type RbacKind, type RbacObjects } from '@plat/auth';
import { StoreInformer, type InformerHandlers, type KubeObject, type ResourceStore } from '@plat/registry';
import type { Logger } from 'pino';
import type { Authorizer } from './authorization.js';
import type { AccessAttributes, AccessDecision, AccessRules } from '@plat/apimachinery';
import type { HealthCheck } from '@plat/serving';
import type { UserInfo } from '@plat/authn';

const RBAC_RESOURCES: Record<RbacKind, string> = {
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Role: 'roles',
  RoleBinding: 'rolebindings',
};

export interface RbacSeed {
  clusterRoles: readonly ClusterRole[];
  clusterRoleBindings: readonly ClusterRoleBinding[];
}

/** The index's objects of one kind, as an informer's handlers. */
function indexHandlers(kind: RbacKind, index: RbacIndex): InformerHandlers<KubeObject> {
  const upsert = (object: unknown): void => index.upsert(kind, structuredClone(object) as RbacObjects[RbacKind]);
  const key = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;
  return {
    upsert,
    remove: (object) => index.remove(kind, object.metadata.namespace ?? '', object.metadata.name ?? ''),
    replace(items) {
      const listed = new Set(items.map((item) => key(item.metadata.namespace, item.metadata.name)));
      for (const old of index.list(kind)) {
        const { namespace, name } = old.metadata ?? {};
        if (!listed.has(key(namespace, name))) index.remove(kind, namespace ?? '', name ?? '');
      }
      for (const item of items) upsert(item);
    },
  };
}

/** Where the RBAC objects are read: the server's catalog of served resources is one. */
export interface RbacStores {
  store(group: string, version: string, resource: string): ResourceStore;
}

/**
 * Upstream's RBAC authorizer over a watched index. Until the first list of a kind succeeds, the
 * index holds the bootstrap policy's objects (the seed), so that anonymous health checks and
 * discovery work while storage is still unreachable.
 */
export class RbacAuthorizer implements Authorizer, HealthCheck {
  readonly name = 'poststarthook/rbac-informers-synced';
  readonly index: RbacIndex;
  private readonly informers: StoreInformer[];

  constructor(catalog: RbacStores, domain: string, logger: Logger, seed: RbacSeed = { clusterRoles: [], clusterRoleBindings: [] }) {
    this.index = new RbacIndex({ domain });
    for (const role of seed.clusterRoles) this.index.upsert('ClusterRole', structuredClone(role));
    for (const binding of seed.clusterRoleBindings) this.index.upsert('ClusterRoleBinding', structuredClone(binding));
    const group = `rbac.authorization.${domain}`;
    this.informers = (Object.keys(RBAC_RESOURCES) as RbacKind[]).map(
      (kind) => new StoreInformer(kind, catalog.store(group, 'v1', RBAC_RESOURCES[kind]), indexHandlers(kind, this.index), logger),
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
