// The CustomResourceDefinition cleanup controller (upstream's CRD finalizer): a definition being
// deleted keeps its `customresourcecleanup.apiextensions.<domain>` finalizer until every custom
// object of its kind is gone. It says so in the Terminating condition, deletes the objects one
// namespace at a time through the API (so that admission and their own finalizers run), waits for
// them to go, then removes the finalizer, and the server deletes the definition.
import { isStatusError } from '@plat/apimachinery';
import { runWorkers, type Client, type KubeObject, type ResourceRef } from '@plat/client';
import { aborted, isNotFound, waitForSync, type Controller } from './context.js';

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface CustomResourceDefinition extends KubeObject {
  spec: {
    group: string;
    names: { plural: string; kind: string };
    scope: string;
    versions: { name: string; served: boolean; storage: boolean }[];
  };
  status?: { conditions?: Condition[]; acceptedNames?: { plural?: string; kind?: string }; storedVersions?: string[] };
}

export const crdCleanupFinalizer = (domain: string): string => `customresourcecleanup.apiextensions.${domain}`;

export const customResourceDefinitionsRef = (domain: string): ResourceRef => ({
  group: `apiextensions.${domain}`,
  version: 'v1',
  resource: 'customresourcedefinitions',
  namespaced: false,
  kind: 'CustomResourceDefinition',
});

/** How long the objects get to go once deleted (upstream polls every 5 s for a minute). */
const POLL_MS = 5000;
const WAIT_MS = 60_000;

const isConflict = (error: unknown): boolean => isStatusError(error) && error.code === 409;

function setCondition(crd: CustomResourceDefinition, condition: Omit<Condition, 'lastTransitionTime'>): void {
  const status = (crd.status ??= {});
  const conditions = (status.conditions ??= []);
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) conditions.push({ ...condition, lastTransitionTime: now });
  else {
    if (existing.status !== condition.status) existing.lastTransitionTime = now;
    Object.assign(existing, condition);
  }
}

const isTrue = (crd: CustomResourceDefinition, type: string): boolean => !!crd.status?.conditions?.some((c) => c.type === type && c.status === 'True');

class Failure extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** The custom objects of the definition, in its storage version (every object is stored in it). */
function objectsOf(client: Client, crd: CustomResourceDefinition): ResourceRef {
  const storage = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0]!;
  // Served under the names accepted for it, which may differ from those asked for.
  const plural = crd.status?.acceptedNames?.plural || crd.spec.names.plural;
  return {
    group: crd.spec.group,
    version: storage.name,
    resource: plural,
    namespaced: crd.spec.scope === 'Namespaced',
    kind: crd.status?.acceptedNames?.kind || crd.spec.names.kind,
  };
}

/** Deletes every object of the definition and waits for them to go; throws a Failure saying why not. */
async function deleteInstances(client: Client, crd: CustomResourceDefinition, signal: AbortSignal): Promise<void> {
  const ref = objectsOf(client, crd);
  const all = client.resource(ref);
  let items: KubeObject[];
  try {
    items = (await all.listAll()).items;
  } catch (error) {
    throw new Failure('InstanceDeletionFailed', `could not list instances: ${(error as Error).message}`);
  }
  const namespaces = new Set(items.map((item) => item.metadata.namespace ?? ''));
  const errors: string[] = [];
  for (const namespace of namespaces) {
    try {
      await (ref.namespaced ? all.namespace(namespace) : all).deleteCollection({});
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  if (errors.length) throw new Failure('InstanceDeletionFailed', `could not issue all deletes: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    let left: number;
    try {
      left = (await all.list({ limit: 1 })).items.length;
    } catch (error) {
      throw new Failure('InstanceDeletionCheck', `could not confirm zero CustomResources remaining: ${(error as Error).message}`);
    }
    if (left === 0) return;
    if (Date.now() >= deadline || signal.aborted) {
      throw new Failure('InstanceDeletionCheck', 'could not confirm zero CustomResources remaining: timed out waiting for the condition');
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export const crdCleanupController: Controller = async ({ client, informers, logger, workQueue, domain }, signal) => {
  const ref = customResourceDefinitionsRef(domain);
  const finalizer = crdCleanupFinalizer(domain);
  const crds = client.resource<CustomResourceDefinition>(ref);
  // A server that serves no custom resources has nothing for this controller to do.
  for (let delay = 200; !signal.aborted; delay = Math.min(delay * 2, 5000)) {
    try {
      await crds.list({ limit: 1 });
      break;
    } catch (error) {
      if (isNotFound(error)) {
        logger.info({ controller: 'crd-cleanup' }, 'the server serves no CustomResourceDefinitions: nothing to do');
        return aborted(signal);
      }
      logger.warn({ err: error, controller: 'crd-cleanup' }, 'listing CustomResourceDefinitions failed; retrying');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  const definitions = informers.informerFor<CustomResourceDefinition>(ref);
  const queue = workQueue<string>('crd_finalizer');

  const enqueue = (crd: CustomResourceDefinition): void => {
    if (crd.metadata.deletionTimestamp && crd.metadata.finalizers?.includes(finalizer)) queue.add(crd.metadata.name!);
  };
  definitions.addEventHandler({ onAdd: enqueue, onUpdate: (_old, crd) => enqueue(crd) });

  const updateStatus = async (crd: CustomResourceDefinition): Promise<CustomResourceDefinition | undefined> => {
    try {
      return await crds.update(crd, { subresource: 'status' });
    } catch (error) {
      // Deleted or changed meanwhile: the event that brings the change brings it back here.
      if (isNotFound(error) || isConflict(error)) return undefined;
      throw error;
    }
  };

  const sync = async (name: string): Promise<void> => {
    const cached = definitions.get(name);
    if (!cached?.metadata.deletionTimestamp || !cached.metadata.finalizers?.includes(finalizer)) return;
    let crd: CustomResourceDefinition | undefined = structuredClone(cached);
    setCondition(crd, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    crd = await updateStatus(crd);
    if (!crd) return;
    if (isTrue(crd, 'Established')) {
      try {
        await deleteInstances(client, crd, signal);
        setCondition(crd, { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' });
      } catch (error) {
        if (!(error instanceof Failure)) throw error;
        setCondition(crd, { type: 'Terminating', status: 'True', reason: error.reason, message: error.message });
        await updateStatus(crd).catch((err: unknown) => logger.warn({ err, controller: 'crd-cleanup', crd: name }, 'could not record the failure'));
        throw error;
      }
    } else {
      setCondition(crd, { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' });
    }
    crd.metadata.finalizers = crd.metadata.finalizers?.filter((f) => f !== finalizer);
    if (await updateStatus(crd)) logger.info({ controller: 'crd-cleanup', crd: name }, 'removed every custom object; the definition goes');
  };

  if (!(await waitForSync(signal, definitions))) return;
  const workers = runWorkers(queue, 1, sync, logger, 'crd-cleanup');
  await aborted(signal);
  queue.shutDown();
  await workers;
};
