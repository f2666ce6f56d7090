// The admission a server's stores are given: the chain of plugins (--enable-admission-plugins,
// --disable-admission-plugins) and the kinds' own checks. Both exist before the catalog, since the
// stores are made with them; what they need of the catalog is provided once it exists, and until
// then they refuse writes (a 500, logged), never admit them.
import { AdmissionChain, alwaysAdmit, alwaysDeny, enabledPlugins, namespaceLifecycle, taintNodesByCondition, type AdmissionPlugin } from '@plat/admission';
import type { StoreCheck, StoreChecks } from '@plat/registry';
import type { Logger } from 'pino';
import { LateStoreCheck } from '../../admission/late-check.js';
import type { ResourceCatalog } from '@plat/endpoints';
import type { ApiOptions } from '../options.js';

export class ServerAdmission {
  readonly chain: AdmissionChain;
  private readonly escalation: LateStoreCheck;
  private readonly customResources: LateStoreCheck;
  private readonly policyParams: LateStoreCheck;

  constructor(api: Pick<ApiOptions, 'admissionPlugins'>, logger: Logger) {
    this.chain = new AdmissionChain(api.admissionPlugins ?? enabledPlugins({ enable: [], disable: [] }), logger);
    this.escalation = new LateStoreCheck('the RBAC escalation check', logger);
    this.customResources = new LateStoreCheck("the custom resources' definition check", logger);
    this.policyParams = new LateStoreCheck("the admission policies' parameter authorization", logger);
  }

  /** The kinds' own checks, for the stores: RBAC escalation and custom resources' definitions before validation, policy parameters after. */
  get checks(): StoreChecks {
    return { beforeValidation: [this.escalation.check, this.customResources.check], afterValidation: [this.policyParams.check] };
  }

  /** The plugins that need only the catalog's namespaces and the domain. */
  provideFromCatalog(catalog: ResourceCatalog, api: Pick<ApiOptions, 'domain' | 'immortalNamespaces'>): void {
    const namespaces = catalog.store('', 'v1', 'namespaces');
    this.chain.provide(namespaceLifecycle({ peek: (name) => namespaces.peek('', name), get: (name) => namespaces.get('', name) }, api.immortalNamespaces ?? []));
    this.chain.provide(taintNodesByCondition(api.domain));
    this.chain.provide(alwaysAdmit);
    this.chain.provide(alwaysDeny);
  }

  /**
   * The kinds' checks once what they read exists. A check with nothing to check here is given as
   * such: without RBAC the authorizer is asked for nothing an escalation check asks; without custom
   * resources or the policy kinds there are no such writes.
   */
  provideChecks(checks: { escalation?: StoreCheck; customResources?: StoreCheck; policyParams?: StoreCheck }): void {
    const none: StoreCheck = () => {};
    this.escalation.provide(checks.escalation ?? none);
    this.customResources.provide(checks.customResources ?? none);
    this.policyParams.provide(checks.policyParams ?? none);
  }

  /** The ValidatingAdmissionPolicy plugin; with the feature gate off, upstream's admits everything. */
  providePolicies(validate: AdmissionPlugin['validate'] | undefined): void {
    this.chain.provide({ name: 'ValidatingAdmissionPolicy', validate: validate ?? (() => {}) });
  }
}
