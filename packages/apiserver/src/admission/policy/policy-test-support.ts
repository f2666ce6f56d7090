// A catalog over memory storage with the policy plugin in its validating admission, the real RBAC
// authorizer behind the expressions' authorizer, and helpers to write policies and wait until the
// plugin has them: for this folder's tests (not exported).
import { AdmissionChain } from '@plat/admission';
import type { UserInfo } from '@plat/apimachinery';
import { builtinDefinitions, type ValidatingAdmissionPolicy, type ValidatingAdmissionPolicyBinding, type ValidatingAdmissionPolicyBindingSpec, type ValidatingAdmissionPolicySpec } from '@plat/api';
import type { KubeObject, ResourceStore, WriteOptions } from '@plat/registry';
import { MetricsStability } from '@plat/serving';
import { createStorage } from '@plat/storage';
import { Registry } from 'prom-client';
import { RbacAuthorizer } from '@plat/authz';
import { newSyncAuthorizer } from '@plat/authz';
import { ResourceCatalog } from '@plat/endpoints';
import { captureLogger } from '../../testing/index.js';
import { ValidatingAdmissionPolicyPlugin } from './policy-admission.js';
import { PolicyMetrics } from './policy-metrics.js';
import { PolicySource } from './policy-source.js';

export const GROUP = 'admissionregistration.plat.io';
export const admin: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
export const alice: UserInfo = { name: 'alice', uid: 'a-1', groups: ['devs', 'system:authenticated'], extra: { team: ['shop'] } };

export interface Recorded {
  warnings: string[];
  annotations: Record<string, string>;
}

export interface PolicyHarness {
  catalog: ResourceCatalog;
  source: PolicySource;
  /** The registry the plugin's and the source's metrics are in. */
  registry: Registry;
  store(group: string, version: string, resource: string): ResourceStore;
  /** Creates or replaces a policy and waits until the plugin has its generation. */
  policy(name: string, spec: ValidatingAdmissionPolicySpec): Promise<void>;
  /** Creates or replaces a binding and waits until the plugin has it. */
  binding(name: string, spec: ValidatingAdmissionPolicyBindingSpec): Promise<void>;
  remove(resource: 'validatingadmissionpolicies' | 'validatingadmissionpolicybindings', name: string): Promise<void>;
  /** Write options that record warnings and audit annotations. */
  recording(user?: UserInfo, more?: WriteOptions): { options: WriteOptions; recorded: Recorded };
  stop(): void;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function policyHarness(namespaces: Record<string, Record<string, string>> = { shop: { env: 'prod' }, lab: { env: 'dev' } }): Promise<PolicyHarness> {
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  const { logger } = captureLogger();
  // The chain as the server builds it, the policies its one plugin, provided once they exist.
  const admission = new AdmissionChain(['ValidatingAdmissionPolicy']);
  const catalog = new ResourceCatalog(builtinDefinitions, { storage, domain: 'plat.io', admission });
  const rbac = new RbacAuthorizer(catalog, 'plat.io', logger);
  const policies = catalog.store(GROUP, 'v1beta1', 'validatingadmissionpolicies');
  const bindings = catalog.store(GROUP, 'v1beta1', 'validatingadmissionpolicybindings');
  const registry = new Registry();
  const metrics = new PolicyMetrics(new MetricsStability(registry));
  const source = new PolicySource(policies, bindings, logger, metrics);
  const plugin = new ValidatingAdmissionPolicyPlugin({ catalog, domain: 'plat.io', source, authorizer: newSyncAuthorizer(['RBAC'], { rbac }), metrics });
  admission.provide({ name: 'ValidatingAdmissionPolicy', validate: (attributes) => plugin.admission(attributes) });
  rbac.start();
  source.start();
  await source.whenSynced();
  for (const [name, labels] of Object.entries(namespaces)) {
    await catalog.store('', 'v1', 'namespaces').create('', { metadata: { name, labels } }, { user: admin });
  }
  await until(() => rbac.synced, 'RBAC');

  async function put(store: ResourceStore, object: KubeObject): Promise<KubeObject> {
    const name = object.metadata.name!;
    try {
      const current = await store.get('', name);
      return (await store.update('', name, { ...object, metadata: { ...object.metadata, resourceVersion: current.metadata.resourceVersion! } }, { user: admin })).object;
    } catch (error) {
      if ((error as { code?: number }).code !== 404) throw error;
      return store.create('', object, { user: admin });
    }
  }

  return {
    catalog,
    source,
    registry,
    store: (group, version, resource) => catalog.store(group, version, resource),
    async policy(name, spec) {
      const written = (await put(policies, { apiVersion: `${GROUP}/v1beta1`, kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec } as ValidatingAdmissionPolicy)) as ValidatingAdmissionPolicy;
      await until(() => source.policy(name)?.generation === written.metadata.generation, `policy ${name}`);
    },
    async binding(name, spec) {
      const written = await put(bindings, { apiVersion: `${GROUP}/v1beta1`, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec } as ValidatingAdmissionPolicyBinding);
      const policyName = spec.policyName ?? '';
      // The binding is in once a request of any resource and operation its policy names sees it.
      await until(
        () =>
          ['CREATE', 'UPDATE', 'DELETE'].some((operation) =>
            [...new Set(['*', ...(source.policy(policyName)?.matchConstraints.resourceRules.flatMap((r) => r.resources ?? []) ?? [])])].some((resource) =>
              source.candidates(resource.split('/')[0]!, operation as 'CREATE').some((c) => c.bindings.some((b) => b.metadata.resourceVersion === written.metadata.resourceVersion)),
            ),
          ),
        `binding ${name}`,
      );
    },
    async remove(resource, name) {
      await catalog.store(GROUP, 'v1beta1', resource).delete('', name, { user: admin });
      await until(() => (resource === 'validatingadmissionpolicies' ? !source.policy(name) : true), `${name} removed`);
      // Bindings leave the index on their event: give the watch a moment.
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
    recording(user = alice, more = {}) {
      const recorded: Recorded = { warnings: [], annotations: {} };
      return {
        recorded,
        options: {
          user,
          warn: (message) => recorded.warnings.push(message),
          annotate: (key, value) => {
            if (!Object.hasOwn(recorded.annotations, key)) recorded.annotations[key] = value;
          },
          ...more,
        },
      };
    },
    stop() {
      source.stop();
      rbac.stop();
      void storage.close();
    },
  };
}
