// NamespaceLifecycle, as upstream's: nothing is created in a namespace that does not exist (404) or
// is being terminated (403), and the system namespaces cannot be deleted.
import { isStatusError, newForbidden, newNotFound } from '@plat/apimachinery';
import type { KubeObject } from '@plat/registry';
import type { AdmissionPlugin } from '../plugin.js';

/** How the plugin reads a namespace: the watch cache's copy where it has one, else the store's (404 as a StatusError). */
export interface NamespaceReader {
  /** The namespace as the watch cache has it; a 404 StatusError where it has not seen it. */
  peek(name: string): Promise<Readonly<KubeObject>>;
  /** The namespace read from storage; a 404 StatusError where it does not exist. */
  get(name: string): Promise<Readonly<KubeObject>>;
}

const namespaces = { group: '', resource: 'namespaces' };
const notFound = (error: unknown): boolean => isStatusError(error) && error.code === 404;

export function namespaceLifecycle(reader: NamespaceReader, immortal: readonly string[]): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    // Upstream's plugin admits in the mutating phase (it changes nothing): it runs before mutating
    // webhooks are called for an object with nowhere to go.
    async mutate({ operation, resource, namespace, name }) {
      if (operation === 'DELETE' && resource.groupResource.group === '' && resource.resource === 'namespaces' && immortal.includes(name)) {
        throw newForbidden(namespaces, name, new Error('this namespace may not be deleted'));
      }
      if (operation !== 'CREATE' || !resource.namespaced) return;
      // As upstream's plugin reads its informer: the watch cache answers, and only a namespace it has
      // not seen (perhaps created a moment ago through another replica) costs a read from etcd.
      let found: Readonly<KubeObject>;
      try {
        found = await reader.peek(namespace).catch((error: unknown) => {
          if (notFound(error)) return reader.get(namespace);
          throw error;
        });
      } catch (error) {
        if (notFound(error)) throw newNotFound(namespaces, namespace);
        throw error;
      }
      if ((found.status as { phase?: string } | undefined)?.phase === 'Terminating') {
        const error = newForbidden(resource.groupResource, name, new Error(`unable to create new content in namespace ${namespace} because it is being terminated`));
        error.status.details = { ...error.status.details, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] };
        throw error;
      }
    },
  };
}
