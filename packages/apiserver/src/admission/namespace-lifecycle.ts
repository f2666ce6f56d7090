// Namespace lifecycle admission, as upstream's NamespaceLifecycle plugin: nothing is created in a
// namespace that does not exist (404) or is being terminated (403), and the system namespaces
// cannot be deleted.
import { isStatusError, newForbidden, newNotFound } from '@plat/apimachinery';
import type { AdmissionCheck, KubeObject } from '@plat/registry';
import type { ResourceCatalog } from '../resources/catalog.js';

export function namespaceLifecycle(catalog: ResourceCatalog, immortal: readonly string[]): AdmissionCheck {
  const namespaces = { group: '', resource: 'namespaces' };
  return async (attributes) => {
    const { operation, resource, namespace, name } = attributes;
    if (operation === 'DELETE' && resource.groupResource.group === '' && resource.resource === 'namespaces' && immortal.includes(name)) {
      throw newForbidden(namespaces, name, new Error('this namespace may not be deleted'));
    }
    if (operation !== 'CREATE' || !resource.namespaced) return;
    // As upstream's plugin reads its informer: the watch cache answers, and only a namespace it has
    // not seen (perhaps created a moment ago through another replica) costs a read from etcd.
    const store = catalog.store('', 'v1', 'namespaces');
    let found: Readonly<KubeObject>;
    try {
      found = await store.peek('', namespace).catch((error: unknown) => {
        if (isStatusError(error) && error.code === 404) return store.get('', namespace);
        throw error;
      });
    } catch (error) {
      if (isStatusError(error) && error.code === 404) throw newNotFound(namespaces, namespace);
      throw error;
    }
    if ((found.status as { phase?: string } | undefined)?.phase === 'Terminating') {
      const error = newForbidden(
        resource.groupResource,
        name,
        new Error(`unable to create new content in namespace ${namespace} because it is being terminated`),
      );
      error.status.details = { ...error.status.details, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] };
      throw error;
    }
  };
}
