// The ServiceAccount controller: every active namespace has a ServiceAccount named "default";
// deleting it brings it back (upstream's serviceaccounts-controller).
import { isStatusError } from '@plat/apimachinery';
import { runWorkers, type KubeObject } from '@plat/client';
import { namespacesRef, serviceAccountsRef } from '../names.js';
import { aborted, isAlreadyExists, waitForSync, type Controller } from './context.js';

const MANAGED_NAMES = ['default'];

interface Namespace extends KubeObject {
  status?: { phase?: string };
}

export const serviceAccountController: Controller = async ({ client, informers, logger, workQueue }, signal) => {
  const namespaces = informers.informerFor<Namespace>(namespacesRef);
  const accounts = informers.informerFor(serviceAccountsRef);
  const queue = workQueue<string>('serviceaccount');

  namespaces.addEventHandler({
    onAdd: (ns) => queue.add(ns.metadata.name!),
    onUpdate: (_old, ns) => queue.add(ns.metadata.name!),
  });
  accounts.addEventHandler({
    onDelete: (account) => {
      if (MANAGED_NAMES.includes(account.metadata.name!)) queue.add(account.metadata.namespace!);
    },
  });

  const sync = async (name: string): Promise<void> => {
    const namespace = namespaces.get(name);
    // Nothing is created in a namespace that is going away (admission would refuse it anyway).
    if (!namespace || namespace.status?.phase !== 'Active' || namespace.metadata.deletionTimestamp) return;
    for (const account of MANAGED_NAMES) {
      if (accounts.get(`${name}/${account}`)) continue;
      try {
        await client.resource(serviceAccountsRef).namespace(name).create({ metadata: { name: account } });
        logger.info({ controller: 'serviceaccount', namespace: name, name: account }, 'created service account');
      } catch (error) {
        if (isAlreadyExists(error)) continue;
        if (isStatusError(error) && error.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) continue;
        throw error;
      }
    }
  };

  if (!(await waitForSync(signal, namespaces, accounts))) return;
  const workers = runWorkers(queue, 1, sync, logger, 'serviceaccount');
  await aborted(signal);
  queue.shutDown();
  await workers;
};
