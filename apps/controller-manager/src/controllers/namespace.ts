// Namespace deletion (upstream's namespace controller and NamespacedResourcesDeleter): when a
// namespace is Terminating, delete every namespaced object of every served kind in it (found through
// discovery), wait until none is left, then remove our finalizer through /finalize, after which the
// server removes the namespace. Progress is reported in the namespace's status conditions, and a
// pass that fails (discovery, or content that could not be deleted) also as a Warning Event on the
// namespace, with the condition's reason and message: upstream's controller records none, and its
// conditions are all a user has to find why `kubectl delete namespace` hangs; an Event shows in
// `kubectl get events` and `kubectl describe namespace`.
import { referenceTo, runWorkers, supportsVerbs, type APIResource, type Client, type KubeObject } from '@plat/client';
import { namespaceFinalizer, namespacesRef } from '../names.js';
import { aborted, isNotFound, retryOnConflict, waitForSync, type Controller } from './context.js';

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

/** Upstream's estimate when content remains only because of finalizers: try again in 15/2 + 1 s. */
const FINALIZER_ESTIMATE_SECONDS = 15;

/** Content is still there; look again after `estimate` seconds. */
class ResourcesRemainingError extends Error {
  constructor(readonly estimate: number) {
    super(`some content remains in the namespace; estimate ${estimate}s`);
  }
}

// The conditions the deleter maintains, in upstream's order, with their reasons and messages when all is well.
const conditionTypes = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;
type ConditionType = (typeof conditionTypes)[number];

const okReasons: Record<ConditionType, [reason: string, message: string]> = {
  NamespaceDeletionDiscoveryFailure: ['ResourcesDiscovered', 'All resources successfully discovered'],
  NamespaceDeletionGroupVersionParsingFailure: ['ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  NamespaceDeletionContentFailure: ['ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  NamespaceContentRemaining: ['ContentRemoved', 'All content successfully removed'],
  NamespaceFinalizersRemaining: ['ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
};

/** The failures of one pass, as conditions with status True; the others are reported as succeeded. */
export class ConditionUpdater {
  private readonly failures = new Map<ConditionType, NamespaceCondition>();

  constructor(private readonly now: () => string = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z')) {}

  private fail(type: ConditionType, reason: string, message: string): void {
    this.failures.set(type, { type, status: 'True', lastTransitionTime: this.now(), reason, message });
  }

  discoveryFailed(message: string): void {
    this.fail('NamespaceDeletionDiscoveryFailure', 'DiscoveryFailed', message);
  }

  contentDeletionFailed(messages: readonly string[]): void {
    this.fail('NamespaceDeletionContentFailure', 'ContentDeletionFailed', `Failed to delete all resource types, ${messages.length} remaining: ${messages.join(', ')}`);
  }

  /** Objects left per group-resource ("roles.rbac.authorization.plat.io"), and per finalizer. */
  contentRemaining(remaining: ReadonlyMap<string, number>, finalizers: ReadonlyMap<string, number>): void {
    if (remaining.size) {
      const parts = [...remaining].map(([gr, n]) => `${gr} has ${n} resource instances`).sort();
      this.fail('NamespaceContentRemaining', 'SomeResourcesRemain', `Some resources are remaining: ${parts.join(', ')}`);
    }
    if (finalizers.size) {
      const parts = [...finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort();
      this.fail('NamespaceFinalizersRemaining', 'SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${parts.join(', ')}`);
    }
  }

  /** The failures of this pass that are errors (not content waiting on its finalizers), as reason and message. */
  errors(): { reason: string; message: string }[] {
    const failing: ConditionType[] = ['NamespaceDeletionDiscoveryFailure', 'NamespaceDeletionGroupVersionParsingFailure', 'NamespaceDeletionContentFailure'];
    return failing.flatMap((type) => {
      const failure = this.failures.get(type);
      return failure ? [{ reason: failure.reason!, message: failure.message! }] : [];
    });
  }

  /**
   * The namespace's conditions after this pass, or undefined when no condition changes status
   * (upstream updates only then; a new message alone is not written).
   */
  apply(conditions: readonly NamespaceCondition[] = []): NamespaceCondition[] | undefined {
    const next = conditions.map((c) => ({ ...c }));
    let changed = false;
    for (const type of conditionTypes) {
      const [reason, message] = okReasons[type];
      const wanted = this.failures.get(type) ?? { type, status: 'False', lastTransitionTime: this.now(), reason, message };
      const index = next.findIndex((c) => c.type === type);
      if (index === -1) {
        next.push(wanted);
        changed = true;
      } else if (next[index]!.status !== wanted.status) {
        next[index] = wanted;
        changed = true;
      }
    }
    return changed ? next : undefined;
  }
}

const groupResource = (r: APIResource): string => (r.group ? `${r.resource}.${r.group}` : r.resource);

/** Deletes what a namespace holds; the number of seconds to wait before looking again, 0 when it is empty. */
async function deleteAllContent(client: Client, resources: readonly APIResource[], namespace: string, conditions: ConditionUpdater): Promise<number> {
  const errors: string[] = [];
  const remaining = new Map<string, number>();
  const finalizers = new Map<string, number>();
  let estimate = 0;
  await Promise.all(
    resources.map(async (resource) => {
      const objects = client.resource(resource).namespace(namespace);
      try {
        if (supportsVerbs(resource, 'deletecollection', 'list')) {
          await objects.deleteCollection({ propagationPolicy: 'Background' });
        } else if (supportsVerbs(resource, 'list')) {
          for (const item of (await objects.listAll()).items) {
            await objects.delete(item.metadata.name!, { propagationPolicy: 'Background' }).catch((error: unknown) => {
              if (!isNotFound(error)) throw error;
            });
          }
        }
        if (!supportsVerbs(resource, 'list')) return;
        const left = (await objects.listAll()).items;
        if (!left.length) return;
        remaining.set(groupResource(resource), left.length);
        let held = false;
        for (const item of left) {
          for (const finalizer of item.metadata.finalizers ?? []) {
            finalizers.set(finalizer, (finalizers.get(finalizer) ?? 0) + 1);
            held = true;
          }
        }
        // Objects held by finalizers are normal (their controllers are at work); anything else is not.
        if (held) estimate = Math.max(estimate, FINALIZER_ESTIMATE_SECONDS);
        else errors.push(`unexpected items still remain in namespace: ${namespace} for gvr: ${resource.group}/${resource.version}, Resource=${resource.resource}`);
      } catch (error) {
        errors.push(`${groupResource(resource)}: ${(error as Error).message}`);
      }
    }),
  );
  conditions.contentRemaining(remaining, finalizers);
  if (errors.length) conditions.contentDeletionFailed(errors);
  if (errors.length) throw new Error(errors.join('; '));
  return estimate;
}

export const namespaceController =
  (workers: number): Controller =>
  async ({ client, informers, resources, domain, logger, workQueue, events }, signal) => {
    const finalizer = namespaceFinalizer(domain);
    const namespaces = informers.informerFor<Namespace>(namespacesRef);
    const api = client.resource<Namespace>(namespacesRef);
    const queue = workQueue<string>('namespace');
    const enqueue = (ns: Namespace): void => {
      if (ns.metadata.deletionTimestamp) queue.add(ns.metadata.name!);
    };
    namespaces.addEventHandler({ onAdd: enqueue, onUpdate: (_old, ns) => enqueue(ns) });

    const writeConditions = async (name: string, conditions: ConditionUpdater): Promise<void> => {
      await retryOnConflict(async () => {
        const current = await api.get(name);
        const next = conditions.apply(current.status?.conditions);
        if (next) await api.update({ ...current, status: { ...current.status, conditions: next } }, { subresource: 'status' });
      }).catch((error: unknown) => {
        if (!isNotFound(error)) logger.warn({ err: error, namespace: name }, 'could not update the namespace conditions');
      });
    };

    const sync = async (name: string): Promise<void> => {
      let namespace: Namespace;
      try {
        namespace = await api.get(name);
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      if (!namespace.metadata.deletionTimestamp) return;
      if (!(namespace.spec?.finalizers ?? []).includes(finalizer)) return;

      const conditions = new ConditionUpdater();
      const discovered = await resources.refresh().catch((error: Error) => {
        conditions.discoveryFailed(error.message);
        return undefined;
      });
      if (discovered?.failed.length) conditions.discoveryFailed(discovered.failed.map((f) => `${f.groupVersion}: ${f.error.message}`).join(', '));
      const deletable = resources.resources().filter((r) => r.namespaced && supportsVerbs(r, 'delete'));
      let estimate: number;
      try {
        estimate = await deleteAllContent(client, deletable, name, conditions);
      } finally {
        await writeConditions(name, conditions);
        for (const { reason, message } of conditions.errors()) events.event(referenceTo(namespace, 'v1', 'Namespace'), 'Warning', reason, message);
      }
      // Discovery that failed may hide kinds that still hold objects: do not finalize on a guess.
      if (!discovered || discovered.failed.length) throw new Error(`discovery failed for namespace ${name}`);
      if (estimate > 0) throw new ResourcesRemainingError(estimate);

      await retryOnConflict(async () => {
        const current = await api.get(name);
        const finalizers = (current.spec?.finalizers ?? []).filter((f) => f !== finalizer);
        await api.update({ ...current, spec: { ...current.spec, finalizers } }, { subresource: 'finalize' });
      }).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      logger.info({ controller: 'namespace', namespace: name }, 'namespace emptied and finalized');
    };

    if (!(await waitForSync(signal, namespaces))) return;
    // A namespace whose content is held by finalizers is looked at again after upstream's estimate.
    const reconcile = async (name: string): Promise<void> => {
      try {
        await sync(name);
      } catch (error) {
        if (!(error instanceof ResourcesRemainingError)) throw error;
        queue.addAfter(name, (Math.floor(error.estimate / 2) + 1) * 1000);
      }
    };
    const running = runWorkers(queue, workers, reconcile, logger, 'namespace');
    await aborted(signal);
    queue.shutDown();
    await running;
  };
