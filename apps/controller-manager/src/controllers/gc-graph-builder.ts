// The garbage collector's graph builder (upstream's GraphBuilder): informers on every deletable
// resource feed the graph of owners and dependents, synchronously, and put the nodes that need a
// look on the collector's queues: an object whose owner went away, an owner deleted in the
// foreground or with orphaning.
import { supportsVerbs, groupVersionString, type APIResource, type KubeObject, type OwnerReference, type RateLimitingQueue } from '@plat/client';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../names.js';
import type { ResourceMap } from '../resources.js';
import type { ControllerContext } from './context.js';
import {
  GraphNode,
  Recent,
  identityKey,
  isBeingDeleted,
  partitionDependents,
  referenceMatches,
  sameIdentity,
  waitsFor,
  type Identity,
} from './gc-graph.js';

/** Owner references added, removed, and changed (same uid, other fields), from `old` to `next`. */
function referenceDiffs(old: readonly OwnerReference[], next: readonly OwnerReference[]) {
  const before = new Map(old.map((r) => [r.uid, r]));
  const after = new Map(next.map((r) => [r.uid, r]));
  const added = next.filter((r) => !before.has(r.uid));
  const removed = old.filter((r) => !after.has(r.uid));
  const changed = next
    .filter((r) => before.has(r.uid) && JSON.stringify(before.get(r.uid)) !== JSON.stringify(r))
    .map((r) => ({ old: before.get(r.uid)!, next: r }));
  return { added, removed, changed };
}

/** Events are not owned and own nothing: upstream's collector ignores them (both groups serve the same objects). */
const isIgnored = (resource: APIResource): boolean => resource.resource === 'events' && (resource.group === '' || resource.group.startsWith('events.'));

/**
 * Upstream's OwnerRefInvalidNamespace Warning: `node` names as its owner an object that is not in its
 * namespace (a namespaced owner elsewhere, or a namespaced kind for a cluster-scoped node); the
 * reference is treated as absent.
 */
export function reportInvalidNamespaceOwnerRef(context: Pick<ControllerContext, 'events'>, node: Identity, owner: OwnerReference): void {
  const regarding = { kind: node.kind, apiVersion: node.apiVersion, ...(node.namespace && { namespace: node.namespace }), name: node.name, uid: node.uid };
  const described = `[${owner.apiVersion}/${owner.kind}, namespace: ${node.namespace}, name: ${owner.name}, uid: ${owner.uid}]`;
  context.events.event(regarding, 'Warning', 'OwnerRefInvalidNamespace', `ownerRef ${described} does not exist in namespace "${node.namespace}"`);
}

export class GraphBuilder {
  private readonly nodes = new Map<string, GraphNode>();
  /** Owners known to be absent (by identityKey); shared with the collector, as upstream's absentOwnerCache. */
  readonly absent = new Recent<true>();
  private readonly monitored = new Set<string>();

  constructor(
    private readonly context: ControllerContext,
    private readonly resources: ResourceMap,
    readonly attemptToDelete: RateLimitingQueue<GraphNode>,
    readonly attemptToOrphan: RateLimitingQueue<GraphNode>,
  ) {}

  /** The node of a uid, for tests and diagnostics. */
  node(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** Starts informers on every deletable resource not watched yet; returns them. */
  monitorResources(): ReturnType<ControllerContext['informers']['informerFor']>[] {
    const started = [];
    for (const resource of this.resources.resources()) {
      if (!supportsVerbs(resource, 'list', 'watch', 'delete') || isIgnored(resource)) continue;
      const key = `${resource.group}/${resource.version}/${resource.resource}`;
      if (this.monitored.has(key)) continue;
      this.monitored.add(key);
      const informer = this.context.informers.informerFor(resource);
      informer.addEventHandler({
        onAdd: (object) => this.observe('add', resource, object),
        onUpdate: (old, object) => this.observe('update', resource, object, old),
        onDelete: (object) => this.observe('delete', resource, object),
      });
      started.push(informer);
    }
    return started;
  }

  private identityOf(resource: APIResource, object: KubeObject): Identity {
    return {
      apiVersion: groupVersionString(resource.group, resource.version),
      kind: resource.kind,
      name: object.metadata.name ?? '',
      uid: object.metadata.uid ?? '',
      namespace: object.metadata.namespace ?? '',
    };
  }

  private observe(type: 'add' | 'update' | 'delete', resource: APIResource, object: KubeObject, old?: KubeObject): void {
    const uid = object.metadata.uid;
    if (!uid) return;
    let existing = this.nodes.get(uid);
    if (existing?.virtual) {
      // A node made up from references is now seen: dependents that named it wrongly are checked.
      const observed = this.identityOf(resource, object);
      if (!sameIdentity(observed, existing.identity)) {
        const [, invalid] = partitionDependents(existing.dependents, observed);
        for (const dependent of invalid) {
          // A namespaced owner seen in another namespace than its dependent's is no owner of it.
          if (observed.namespace && dependent.identity.namespace !== observed.namespace) this.reportInvalidOwner(dependent, uid);
          this.attemptToDelete.add(dependent);
        }
        existing.identity = observed;
      }
      existing.virtual = false;
    }
    if (type === 'delete') {
      if (existing) this.removeNode(existing, existing.identity);
      return;
    }
    const owners = object.metadata.ownerReferences ?? [];
    if (!existing) {
      existing = new GraphNode(this.identityOf(resource, object), false);
      existing.owners = owners;
      existing.beingDeleted = isBeingDeleted(object);
      existing.deletingDependents = waitsFor(object, FOREGROUND_FINALIZER);
      this.nodes.set(uid, existing);
      this.addDependentToOwners(existing, owners);
    } else {
      const { added, removed, changed } = referenceDiffs(existing.owners, owners);
      if (added.length || removed.length || changed.length) {
        this.addUnblockedOwnersToDeleteQueue(removed, changed);
        existing.owners = owners;
        this.addDependentToOwners(existing, added);
        for (const ref of removed) this.nodes.get(ref.uid)?.dependents.delete(existing);
      }
      if (isBeingDeleted(object)) existing.beingDeleted = true;
    }
    this.processTransitions(old, object, existing);
  }

  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) {
      let owner = this.nodes.get(ref.uid);
      if (!owner) {
        // An owner not seen (yet): a virtual node, checked against the API by attemptToDelete.
        owner = new GraphNode({ apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: node.identity.namespace }, true);
        this.nodes.set(ref.uid, owner);
        owner.dependents.add(node);
        this.attemptToDelete.add(owner);
      } else {
        // An owner seen in another namespace: the reference is wrong (the bad child after the good parent).
        if (!owner.virtual && owner.identity.namespace && owner.identity.namespace !== node.identity.namespace) this.reportInvalidOwner(node, ref.uid);
        owner.dependents.add(node);
      }
    }
  }

  private reportInvalidOwner(node: GraphNode, ownerUid: string): void {
    const ref = node.owners.find((owner) => owner.uid === ownerUid);
    if (ref) reportInvalidNamespaceOwnerRef(this.context, node.identity, ref);
  }

  /** Owners waiting for their dependents are looked at again when a blocking reference goes away. */
  private addUnblockedOwnersToDeleteQueue(removed: readonly OwnerReference[], changed: readonly { old: OwnerReference; next: OwnerReference }[]): void {
    const unblocked = [
      ...removed.filter((r) => r.blockOwnerDeletion),
      ...changed.filter((c) => c.old.blockOwnerDeletion && !c.next.blockOwnerDeletion).map((c) => c.next),
    ];
    for (const ref of unblocked) {
      const owner = this.nodes.get(ref.uid);
      if (owner?.deletingDependents) this.attemptToDelete.add(owner);
    }
  }

  private processTransitions(old: KubeObject | undefined, object: KubeObject, node: GraphNode): void {
    if (waitsFor(object, ORPHAN_FINALIZER) && !waitsFor(old, ORPHAN_FINALIZER)) {
      this.attemptToOrphan.add(node);
      return;
    }
    if (waitsFor(object, FOREGROUND_FINALIZER) && !waitsFor(old, FOREGROUND_FINALIZER)) {
      node.deletingDependents = true;
      for (const dependent of node.dependents) this.attemptToDelete.add(dependent);
      this.attemptToDelete.add(node);
    }
  }

  private removeNode(node: GraphNode, identity: Identity): void {
    this.nodes.delete(node.identity.uid);
    for (const ref of node.owners) this.nodes.get(ref.uid)?.dependents.delete(node);
    if (node.dependents.size) this.absent.set(identityKey(identity), true);
    for (const dependent of node.dependents) this.attemptToDelete.add(dependent);
    for (const ref of node.owners) {
      const owner = this.nodes.get(ref.uid);
      // An owner waiting for its dependents checks whether any are left.
      if (owner?.deletingDependents) this.attemptToDelete.add(owner);
    }
  }

  /** The API says `identity` does not exist: a delete event the informers could not give. */
  virtualDelete(identity: Identity): void {
    const existing = this.nodes.get(identity.uid);
    if (!existing) return;
    if (existing.virtual) {
      const [matching, other] = partitionDependents(existing.dependents, identity);
      if (other.length) {
        // Some dependents name this uid by other coordinates: keep the node for them.
        if (matching.length) {
          this.absent.set(identityKey(identity), true);
          for (const dependent of matching) this.attemptToDelete.add(dependent);
        }
        if (sameIdentity(existing.identity, identity)) {
          const alternative = other.flatMap((d) => d.owners).find((r) => r.uid === identity.uid && !referenceMatches(r, identity));
          if (alternative) {
            existing.identity = { apiVersion: alternative.apiVersion, kind: alternative.kind, name: alternative.name, uid: alternative.uid, namespace: identity.namespace };
            this.attemptToDelete.addRateLimited(existing);
          }
        }
        return;
      }
    } else if (!sameIdentity(existing.identity, identity)) {
      const [matching] = partitionDependents(existing.dependents, identity);
      if (matching.length) {
        this.absent.set(identityKey(identity), true);
        for (const dependent of matching) this.attemptToDelete.add(dependent);
      }
      return;
    }
    this.removeNode(existing, identity);
  }
}
