// The garbage collector (upstream's garbagecollector.go): it acts on the graph of owners and
// dependents that its graph builder keeps (gc-graph-builder.ts). An object whose owners are all gone
// is deleted; an owner deleted with Foreground (the foregroundDeletion finalizer) waits until its
// dependents with blockOwnerDeletion are gone; an owner deleted with Orphan (the orphan finalizer)
// has the references to it removed from its dependents first. Deletes carry a uid precondition.
import {
  RateLimitingQueue,
  Requeue,
  runWorkers,
  type APIResource,
  type KubeObject,
  type Logger,
  type OwnerReference,
  type PropagationPolicy,
} from '@plat/client';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../names.js';
import type { ResourceMap } from '../resources.js';
import { aborted, isNotFound, retryOnConflict, waitForSync, type Controller, type ControllerContext } from './context.js';
import { GraphBuilder, reportInvalidNamespaceOwnerRef } from './gc-graph-builder.js';
import { GraphNode, Recent, hasFinalizer, identityKey, waitsFor, type Identity } from './gc-graph.js';

export { GraphNode, type Identity } from './gc-graph.js';

/** Whether resourceVersion `a` is older than `b`: ours are etcd revisions, one sequence for all kinds. */
function olderThan(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) < BigInt(b);
}

/** The resource of an owner reference is not (yet) served: retried quietly, as discovery may catch up. */
class RestMappingError extends Requeue {}

/** A reference that can never resolve (a cluster-scoped object with a namespaced owner): not retried. */
class UnresolvableReference extends Error {
  constructor(
    message: string,
    readonly ref: OwnerReference,
  ) {
    super(message);
  }
}

type Classified = { solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] };

/** How often discovery is read again for resources added since. */
const DISCOVERY_RESYNC_MS = 30_000;

export class GarbageCollector {
  readonly attemptToDelete: RateLimitingQueue<GraphNode>;
  readonly attemptToOrphan: RateLimitingQueue<GraphNode>;
  private readonly graph: GraphBuilder;
  /**
   * Owners (by uid) whose orphan finalizer this collector removed, with the owner's resourceVersion
   * then. A dependent the graph did not know of at that moment (its informer's event came after the
   * owner's) still refers to the owner once it is gone: if it has not changed since, it is one the
   * owner asked to orphan, and it is orphaned rather than collected.
   */
  private readonly orphaned = new Recent<string>(5000);

  constructor(
    private readonly context: ControllerContext,
    private readonly resources: ResourceMap,
    private readonly logger: Logger,
  ) {
    this.attemptToDelete = context.workQueue('garbage_collector_attempt_to_delete');
    this.attemptToOrphan = context.workQueue('garbage_collector_attempt_to_orphan');
    this.graph = new GraphBuilder(context, resources, this.attemptToDelete, this.attemptToOrphan);
  }

  private get absent(): Recent<true> {
    return this.graph.absent;
  }

  /** The node of a uid, for tests and diagnostics. */
  node(uid: string): GraphNode | undefined {
    return this.graph.node(uid);
  }

  /** Starts informers on every deletable resource not watched yet; returns them. */
  monitorResources(): ReturnType<ControllerContext['informers']['informerFor']>[] {
    return this.graph.monitorResources();
  }

  // ---- talking to the API ----

  private resourceOf(identity: { apiVersion: string; kind: string }): APIResource {
    const resource = this.resources.forKind(identity.apiVersion, identity.kind);
    if (!resource) throw new RestMappingError(`no served resource for ${identity.apiVersion}, Kind=${identity.kind}`);
    return resource;
  }

  private objectClient(identity: Identity) {
    const resource = this.resourceOf(identity);
    const objects = this.context.client.resource(resource);
    return resource.namespaced ? objects.namespace(identity.namespace) : objects;
  }

  private async getObject(identity: Identity): Promise<KubeObject | undefined> {
    try {
      return await this.objectClient(identity).get(identity.name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async deleteObject(identity: Identity, policy: PropagationPolicy): Promise<void> {
    this.logger.info({ controller: 'garbagecollector', object: identity, propagationPolicy: policy }, 'deleting object');
    try {
      await this.objectClient(identity).delete(identity.name, { preconditions: { uid: identity.uid }, propagationPolicy: policy });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /**
   * Changes an object read fresh, while it is still the object of `identity`; retried on conflicts.
   * Resolves the object as updated, or undefined when nothing was written.
   */
  private async updateObject(identity: Identity, change: (object: KubeObject) => boolean): Promise<KubeObject | undefined> {
    return retryOnConflict(async () => {
      const latest = await this.getObject(identity);
      if (!latest || latest.metadata.uid !== identity.uid) return undefined;
      if (!change(latest)) return undefined;
      try {
        return await this.objectClient(identity).update(latest);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        return undefined;
      }
    });
  }

  private removeFinalizer(identity: Identity, finalizer: string): Promise<KubeObject | undefined> {
    return this.updateObject(identity, (object) => {
      const finalizers = object.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return false;
      object.metadata.finalizers = finalizers.filter((f) => f !== finalizer);
      return true;
    });
  }

  private removeOwnerReferences(identity: Identity, uids: readonly string[]): Promise<KubeObject | undefined> {
    return this.updateObject(identity, (object) => {
      const refs = object.metadata.ownerReferences ?? [];
      const kept = refs.filter((r) => !uids.includes(r.uid));
      if (kept.length === refs.length) return false;
      if (kept.length) object.metadata.ownerReferences = kept;
      else delete object.metadata.ownerReferences;
      return true;
    });
  }

  // ---- the workers (upstream's attemptToDeleteItem and attemptToOrphanWorker) ----

  /** Whether an owner reference points at an object that is gone (or is another object now). */
  private async isDangling(ref: OwnerReference, item: GraphNode): Promise<{ dangling: true } | { dangling: false; owner: KubeObject }> {
    const coordinates = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid };
    if (this.absent.get(identityKey({ ...coordinates, namespace: '' })) || this.absent.get(identityKey({ ...coordinates, namespace: item.identity.namespace }))) {
      return { dangling: true };
    }
    const resource = this.resourceOf(ref);
    if (!item.identity.namespace && resource.namespaced) throw new UnresolvableReference(`cluster-scoped ${item} names a namespaced owner ${ref.kind} ${ref.name}`, ref);
    const ownerIdentity = { ...coordinates, namespace: resource.namespaced ? item.identity.namespace : '' };
    const owner = await this.getObject(ownerIdentity);
    if (!owner || owner.metadata.uid !== ref.uid) {
      this.absent.set(identityKey(ownerIdentity), true);
      return { dangling: true };
    }
    return { dangling: false, owner };
  }

  private async classifyReferences(item: GraphNode, refs: readonly OwnerReference[]): Promise<Classified> {
    const classified: Classified = { solid: [], dangling: [], waiting: [] };
    for (const ref of refs) {
      const result = await this.isDangling(ref, item);
      if (result.dangling) classified.dangling.push(ref);
      else if (waitsFor(result.owner, FOREGROUND_FINALIZER)) classified.waiting.push(ref);
      else classified.solid.push(ref);
    }
    return classified;
  }

  /** attemptToDeleteItem for the workers: an unresolvable reference is reported once, not retried. */
  async reconcile(item: GraphNode): Promise<void> {
    try {
      await this.attemptToDeleteItem(item);
    } catch (error) {
      if (!(error instanceof UnresolvableReference)) throw error;
      this.logger.warn({ controller: 'garbagecollector', object: item.identity, reason: error.message }, 'ignoring an invalid owner reference');
      reportInvalidNamespaceOwnerRef(this.context, item.identity, error.ref);
    }
  }

  async attemptToDeleteItem(item: GraphNode): Promise<void> {
    // Being deleted is a one-way trip: wait for the deletion, then see to the dependents.
    if (item.beingDeleted && !item.deletingDependents) return;
    const latest = await this.getObject(item.identity);
    if (!latest || latest.metadata.uid !== item.identity.uid) {
      this.graph.virtualDelete(item.identity);
      return;
    }
    // Seen by the API but not (yet) by an informer: look again later.
    if (item.virtual) throw new Requeue(`${item} has not been observed by an informer yet`);
    if (item.deletingDependents) return this.processDeletingDependents(item);

    const refs = latest.metadata.ownerReferences ?? [];
    if (!refs.length) return;
    const version = latest.metadata.resourceVersion;
    const toOrphaned = refs.filter((ref) => olderThan(version, this.orphaned.get(ref.uid)));
    if (toOrphaned.length) {
      // Its update brings it back here with the references that remain.
      await this.removeOwnerReferences(item.identity, toOrphaned.map((ref) => ref.uid));
      return;
    }
    const { solid, dangling, waiting } = await this.classifyReferences(item, refs);
    if (solid.length) {
      // An owner remains: references to absent owners, and to owners waiting on their
      // dependents (which would otherwise wait forever), are removed.
      if (dangling.length || waiting.length) await this.removeOwnerReferences(item.identity, [...dangling, ...waiting].map((r) => r.uid));
      return;
    }
    if (waiting.length && item.dependents.size) {
      // An owner waits for us and we have dependents: delete in the foreground too. A dependent
      // that is itself deleting its dependents may mean a cycle: our references stop blocking.
      if ([...item.dependents].some((d) => d.deletingDependents)) {
        await this.updateObject(item.identity, (object) => {
          let changed = false;
          for (const ref of object.metadata.ownerReferences ?? []) {
            if (ref.blockOwnerDeletion) {
              ref.blockOwnerDeletion = false;
              changed = true;
            }
          }
          return changed;
        });
      }
      await this.deleteObject(item.identity, 'Foreground');
      return;
    }
    // No owner left: collect it, honouring a policy its own finalizers already ask for.
    const policy: PropagationPolicy = hasFinalizer(latest, ORPHAN_FINALIZER)
      ? 'Orphan'
      : hasFinalizer(latest, FOREGROUND_FINALIZER)
        ? 'Foreground'
        : 'Background';
    await this.deleteObject(item.identity, policy);
  }

  /** An owner deleted in the foreground: once no dependent blocks it, its finalizer is removed. */
  private async processDeletingDependents(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (!blocking.length) {
      this.logger.info({ controller: 'garbagecollector', object: item.identity }, 'removing the foregroundDeletion finalizer');
      await this.removeFinalizer(item.identity, FOREGROUND_FINALIZER);
      return;
    }
    for (const dependent of blocking) if (!dependent.deletingDependents) this.attemptToDelete.add(dependent);
  }

  /** An owner deleted with Orphan: its dependents lose their references to it, then it loses its finalizer. */
  async orphanDependents(owner: GraphNode): Promise<void> {
    const dependents = [...owner.dependents];
    const results = await Promise.allSettled(dependents.map((d) => this.removeOwnerReferences(d.identity, [owner.identity.uid])));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed.length) throw new Error(`orphaning dependents of ${owner}: ${failed.map((f) => (f.reason as Error).message).join('; ')}`);
    this.logger.info({ controller: 'garbagecollector', object: owner.identity, dependents: dependents.length }, 'orphaned dependents');
    const released = await this.removeFinalizer(owner.identity, ORPHAN_FINALIZER);
    if (released?.metadata.resourceVersion) this.orphaned.set(owner.identity.uid, released.metadata.resourceVersion);
  }
}

export const garbageCollectorController =
  (workers: number): Controller =>
  async (context, signal) => {
    const logger = context.logger;
    const gc = new GarbageCollector(context, context.resources, logger);
    // Discovery can fail while the server starts: keep trying.
    for (let delay = 200; !signal.aborted; delay = Math.min(delay * 2, 5000)) {
      try {
        await context.resources.refresh();
        break;
      } catch (err) {
        logger.warn({ err, controller: 'garbagecollector' }, 'discovery failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
    const informers = gc.monitorResources();
    if (!(await waitForSync(signal, ...informers))) return;
    logger.info({ controller: 'garbagecollector', resources: informers.length }, 'all resource monitors have synced');
    const resync = setInterval(() => {
      context.resources.refresh().then(
        () => gc.monitorResources(),
        (err: unknown) => logger.warn({ err, controller: 'garbagecollector' }, 'discovery failed'),
      );
    }, DISCOVERY_RESYNC_MS);
    const running = Promise.all([
      runWorkers(gc.attemptToDelete, workers, (node) => gc.reconcile(node), logger, 'garbagecollector'),
      runWorkers(gc.attemptToOrphan, 1, (node) => gc.orphanDependents(node), logger, 'garbagecollector-orphan'),
    ]);
    await aborted(signal);
    clearInterval(resync);
    gc.attemptToDelete.shutDown();
    gc.attemptToOrphan.shutDown();
    await running;
  };
