// The IPAddress objects the cluster-IP allocator reads and writes, over the IPAddress kind's store:
// its create is the lock (AlreadyExists: taken by someone else), the server's own writes (no user,
// no admission), as upstream's allocator writes them through its own client.
import { isStatusError } from '@plat/apimachinery';
import type { KubeObject, ResourceStore } from '@plat/registry';
import type { IPAddressObjects } from './cluster-ip-allocator.js';

export function ipAddressObjects(store: () => ResourceStore): IPAddressObjects {
  return {
    async create(object: KubeObject): Promise<boolean> {
      const { apiVersion, kind } = store().resource;
      try {
        await store().create('', { ...object, apiVersion, kind } as KubeObject, { manager: 'kube-apiserver' });
        return true;
      } catch (error) {
        if (isStatusError(error, 'AlreadyExists')) return false;
        throw error;
      }
    },
    async exists(name: string): Promise<boolean> {
      try {
        await store().get('', name);
        return true;
      } catch (error) {
        if (isStatusError(error, 'NotFound')) return false;
        throw error;
      }
    },
    async delete(name: string): Promise<void> {
      try {
        await store().delete('', name);
      } catch (error) {
        if (!isStatusError(error, 'NotFound')) throw error;
      }
    },
  };
}
