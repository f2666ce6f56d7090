// The ValidatingAdmissionPolicy admission plugin (validating phase), as upstream's
// validatingadmissionpolicy controller's Validate: for each policy whose constraints select the
// request, each of its bindings that selects it too is evaluated with each of its parameter
// objects; failed validations are refused (Deny), returned as warnings (Warn) or written to the
// audit event (Audit), and a policy's audit annotations are added. A request no policy can select
// (the index by resource name) is done after one map lookup. Each validation that fails (or errs)
// is counted and timed in apiserver_validating_admission_policy_check_* (policy-metrics.ts) as 1.28
// counts it.
import { StatusError, isStatusError, labelSelectorFromObject, newForbidden, type GroupResource, type UserInfo } from '@plat/apimachinery';
import {
  ExpressionTimer,
  compileMatch,
  evaluatePolicy,
  matches,
  parseGroupVersion,
  policyActivation,
  withParams,
  type Activation,
  type CompiledMatch,
  type CompiledPolicy,
  type EquivalentResource,
  type GroupVersionKind,
  type GroupVersionResource,
  type MatchRequest,
  type ParamKind,
  type PolicyAuthorizer,
  type PolicyDecision,
  type ValidatingAdmissionPolicyBinding,
} from '@plat/api';
import type { AdmissionAttributes, AdmissionCheck, KubeObject } from '@plat/registry';
import type { ResourceCatalog, ServedResource } from '../../resources/catalog.js';
import type { BindingCheckMetrics, EnforcementAction, PolicyMetrics } from './policy-metrics.js';
import type { BoundPolicy, PolicySource } from './policy-source.js';

/** Upstream's maxAuditAnnotationValueLength. */
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;
/** How long a request waits for the policies to be listed before it is refused (upstream's WaitForReady). */
const READY_WAIT_MS = 10_000;

/** The identity of the server's own writes (upstream's loopback client). */
const SERVER_USER: UserInfo = { name: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

export interface PolicyAdmissionOptions {
  catalog: ResourceCatalog;
  domain: string;
  source: PolicySource;
  /** The server's authorizer, answering synchronously (the expressions' authorizer library). */
  authorizer: PolicyAuthorizer;
  /** Where the checks are counted (the server's /metrics). */
  metrics?: PolicyMetrics;
}

interface Denial {
  policy: string;
  binding: string | undefined;
  decision: PolicyDecision;
}

const codeOf: Record<string, number> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

/** Go's json.Marshal text: HTML characters escaped. */
const goJSON = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const errorText = (error: unknown): string => (error instanceof StatusError ? error.status.message ?? '' : error instanceof Error ? error.message : String(error));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class ValidatingAdmissionPolicyPlugin {
  /** Compiled binding constraints, by binding object (each is replaced, not changed, by the watch). */
  private readonly bindingMatches = new WeakMap<ValidatingAdmissionPolicyBinding, CompiledMatch>();
  private readonly policyGroup: string;

  constructor(private readonly options: PolicyAdmissionOptions) {
    this.policyGroup = `admissionregistration.${options.domain}`;
  }

  /** Returns at once (no promise) for a request no policy can select. */
  readonly admission: AdmissionCheck = (attributes) => {
    const { resource } = attributes;
    // Policies do not apply to themselves.
    if (resource.group === this.policyGroup && (resource.resource === 'validatingadmissionpolicies' || resource.resource === 'validatingadmissionpolicybindings')) return;
    const { source } = this.options;
    if (!source.synced) return this.whenReady(attributes);
    const candidates = source.candidates(resource.resource, attributes.operation);
    if (!candidates.length) return;
    return this.validate(attributes, candidates);
  };

  /** Before the policies are listed, a request waits for them a while, then is refused. */
  private async whenReady(attributes: AdmissionAttributes): Promise<void> {
    const { source } = this.options;
    await Promise.race([source.whenSynced(), sleep(READY_WAIT_MS)]);
    if (!source.synced) throw newForbidden(attributes.resource.groupResource, deniedName(attributes), new Error('not yet ready to handle request'));
    await this.admission(attributes);
  }

  private async validate(attributes: AdmissionAttributes, candidates: readonly BoundPolicy[]): Promise<void> {
    const { domain } = this.options;
    const request = new RequestContext(attributes, this.options.catalog, this.options.authorizer);
    const denials: Denial[] = [];
    const configurationError = (policy: CompiledPolicy, binding: string | undefined, error: unknown): void => {
      if (policy.failurePolicy === 'Ignore') return;
      const message =
        policy.failurePolicy === 'Fail'
          ? `failed to configure ${binding === undefined ? 'policy' : 'binding'}: ${errorText(error)}`
          : `unrecognized failure policy: '${policy.failurePolicy}'`;
      // Not counted: 1.28 counts only what the expressions decided, not configuration errors.
      denials.push({ policy: policy.name, binding, decision: { action: 'deny', evaluation: 'error', message, elapsed: 0 } });
    };

    // The request's time bound for its expressions (upstream's request context): once one runs out of time, the rest do.
    const timer = new ExpressionTimer();
    for (const { policy, bindings } of candidates) {
      let definition;
      try {
        definition = await matches(policy.matchConstraints, request.match);
      } catch (error) {
        configurationError(policy, undefined, error);
        continue;
      }
      if (!definition.matched) continue;
      const paramKind = policy.spec.paramKind;
      const paramSource = paramKind ? this.paramSource(paramKind) : undefined;
      if (paramSource instanceof Error) {
        configurationError(policy, undefined, paramSource);
        continue;
      }
      const published = new Map<string, string[]>();
      for (const binding of bindings) {
        const name = binding.metadata.name!;
        try {
          if (!(await this.bindingSelects(binding, request.match))) continue;
        } catch (error) {
          configurationError(policy, name, error);
          continue;
        }
        let params: (KubeObject | null)[];
        try {
          params = paramSource ? await collectParams(paramKind!, paramSource, binding, request.namespace) : [null];
        } catch (error) {
          configurationError(policy, name, error);
          continue;
        }
        // Resolved when this binding first records a check: a validation that passes records none.
        let checks: BindingCheckMetrics | undefined;
        const record = this.options.metrics
          ? (action: EnforcementAction, seconds: number): void => (checks ??= this.options.metrics!.binding(policy.name, name)).record(action, seconds)
          : undefined;
        for (const param of params) {
          const activation = await request.activation(definition.resource, definition.kind, policy, param);
          const result = evaluatePolicy(policy, activation, undefined, timer);
          result.decisions.forEach((decision, index) => {
            if (decision.action !== 'deny') {
              // An error let through by failurePolicy Ignore is counted as allowed; a pass, not at all.
              if (decision.evaluation === 'error') record?.('allow', decision.elapsed);
              return;
            }
            for (const action of binding.spec?.validationActions ?? []) {
              if (action === 'Deny') {
                denials.push({ policy: policy.name, binding: name, decision });
                record?.('deny', decision.elapsed);
              } else if (action === 'Warn') {
                attributes.warn?.(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${name}': ${decision.message}`);
                record?.('warn', decision.elapsed);
              } else if (action === 'Audit') {
                attributes.annotate?.(
                  `validation.policy.admission.${domain}/validation_failure`,
                  goJSON([{ message: decision.message, policy: binding.spec?.policyName ?? '', binding: name, expressionIndex: index, validationActions: binding.spec?.validationActions ?? [] }]),
                );
                record?.('audit', decision.elapsed);
              }
            }
          });
          for (const annotation of result.auditAnnotations) {
            if (annotation.action === 'publish') {
              const value = annotation.value!.length > MAX_AUDIT_ANNOTATION_VALUE_LENGTH ? annotation.value!.slice(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH) : annotation.value!;
              const values = published.get(annotation.key) ?? [];
              if (!values.includes(value)) values.push(value);
              published.set(annotation.key, values);
            } else if (annotation.action === 'error') {
              // With failurePolicy Fail, an audit annotation that cannot be evaluated refuses the request.
              // Counted as a deny whatever the binding's actions, as upstream counts it.
              denials.push({ policy: policy.name, binding: name, decision: { action: 'deny', evaluation: 'error', message: annotation.error ?? '', elapsed: annotation.elapsed } });
              record?.('deny', annotation.elapsed);
            }
          }
        }
      }
      for (const [key, values] of published) attributes.annotate?.(`${policy.name}/${key}`, values.join(', '));
    }
    if (denials.length) throw denialError(attributes, denials[0]!);
  }

  /** A binding's own constraints (none: it selects whatever its policy does). */
  private async bindingSelects(binding: ValidatingAdmissionPolicyBinding, request: MatchRequest): Promise<boolean> {
    const constraints = binding.spec?.matchResources;
    if (!constraints) return true;
    let compiled = this.bindingMatches.get(binding);
    if (!compiled) {
      compiled = compileMatch(constraints);
      this.bindingMatches.set(binding, compiled);
    }
    return (await matches(compiled, request)).matched;
  }

  /** The served resource of a paramKind, or why there is none (upstream's RESTMapping failure). */
  private paramSource(kind: ParamKind): ServedResource | Error {
    const gv = parseGroupVersion(kind.apiVersion ?? '');
    const group = typeof gv === 'string' ? '' : gv.group;
    const version = typeof gv === 'string' ? '' : gv.version;
    const served = this.options.catalog.all().find((s) => s.resolved.group === group && s.resolved.version === version && s.resolved.kind === kind.kind && !s.resolved.definition.virtual);
    return served ?? new Error(`failed to find resource referenced by paramKind: '${group}/${version}, Kind=${kind.kind ?? ''}'`);
  }
}

/** The parameter objects a binding names (upstream's collectParams); [] when none is found and that is allowed. */
async function collectParams(kind: ParamKind, source: ServedResource, binding: ValidatingAdmissionPolicyBinding, requestNamespace: string): Promise<(KubeObject | null)[]> {
  const ref = binding.spec?.paramRef;
  // A binding of a policy with params that names none: the policy is evaluated with params null.
  if (!ref) return [null];
  const namespaced = source.resolved.namespaced;
  let namespace = '';
  if (namespaced) {
    namespace = ref.namespace || requestNamespace;
    if (!namespace) throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (ref.namespace) {
    throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  let params: KubeObject[];
  if (ref.name) {
    if (ref.selector) throw new Error('paramRef.name and paramRef.selector are mutually exclusive');
    try {
      params = [await source.store.peek(namespace, ref.name)];
    } catch (error) {
      // Not there (yet): the binding's parameterNotFoundAction decides.
      if (!isStatusError(error) || error.code !== 404) throw error;
      params = [];
    }
  } else if (ref.selector) {
    const selector = labelSelectorFromObject(ref.selector);
    const list = await source.store.list(namespace, { resourceVersion: '0' });
    params = list.items.filter((item) => selector.matches(item.metadata.labels));
  } else {
    throw new Error('one of name or selector must be provided');
  }
  if (!params.length && ref.parameterNotFoundAction === 'Deny') throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
  // Objects of typed kinds are stored without their type: expressions may read params.kind.
  return params.map((param) => (param.apiVersion && param.kind ? param : { ...param, apiVersion: kind.apiVersion!, kind: kind.kind! }));
}

/** The name a denial names: the object's, else its generateName, else "Unknown" (a delete has no object). */
function deniedName(attributes: AdmissionAttributes): string {
  return attributes.object?.metadata.name || attributes.object?.metadata.generateName || 'Unknown';
}

/** Upstream's refusal: a Forbidden Status with the first denial's reason and code. */
function denialError(attributes: AdmissionAttributes, denial: Denial): StatusError {
  const message =
    denial.binding === undefined
      ? `ValidatingAdmissionPolicy '${denial.policy}' denied request: ${denial.decision.message}`
      : `ValidatingAdmissionPolicy '${denial.policy}' with binding '${denial.binding}' denied request: ${denial.decision.message}`;
  const error = newForbidden(attributes.resource.groupResource as GroupResource, deniedName(attributes), new Error(message));
  const reason = denial.decision.reason || 'Invalid';
  const status = error.status;
  status.reason = reason as typeof status.reason;
  status.code = codeOf[reason] ?? 422;
  status.details = { ...status.details, causes: [...(status.details?.causes ?? []), { message }] };
  return error;
}

/**
 * What the policies see of one request, made when first needed and then kept: the match view,
 * the namespace, the variables' values for each resource version a policy matched it as.
 */
class RequestContext {
  readonly match: MatchRequest;
  readonly namespace: string;
  private namespaceObject: Promise<KubeObject | undefined> | undefined;
  private readonly user: UserInfo;
  private readonly served: ServedResource | undefined;
  private readonly activations = new Map<string, Promise<Activation>>();

  constructor(
    private readonly attributes: AdmissionAttributes,
    private readonly catalog: ResourceCatalog,
    private readonly authorizer: PolicyAuthorizer,
  ) {
    const { resource, subresource = '', operation, object, oldObject, name } = attributes;
    this.user = attributes.user ?? SERVER_USER;
    const isNamespace = resource.group === '' && resource.resource === 'namespaces';
    // As upstream's attributes: a Namespace's namespace is its own name.
    this.namespace = isNamespace ? name : attributes.namespace;
    this.served = catalog.find(resource.group, resource.version, resource.resource);
    const kindOf = (r: { group: string; version: string; kind: string }): GroupVersionKind => ({ group: r.group, version: r.version, kind: r.kind });
    const subresourceKind = subresource ? resource.subresourceKinds.get(subresource) : undefined;
    this.match = {
      operation,
      resource: { group: resource.group, version: resource.version, resource: resource.resource },
      kind: kindOf(subresourceKind ?? resource),
      subresource,
      namespace: this.namespace,
      name,
      object,
      oldObject,
      namespaceLabels: async () => (await this.namespaceOf())?.metadata.labels,
      equivalents: () => equivalentResources(catalog, resource.prefix(''), subresource),
    };
  }

  /** The request's namespace object (none for cluster-scoped requests and for a Namespace itself). */
  private namespaceOf(): Promise<KubeObject | undefined> {
    const name = this.namespace;
    if (!name || (this.attributes.resource.group === '' && this.attributes.resource.resource === 'namespaces')) return Promise.resolve(undefined);
    this.namespaceObject ??= (async () => {
      const store = this.catalog.store('', 'v1', 'namespaces');
      try {
        return (await store.peek('', name)) as KubeObject;
      } catch (error) {
        // Perhaps created a moment ago through another replica: storage has the last word.
        if (isStatusError(error) && error.code === 404) return store.get('', name);
        throw error;
      }
    })();
    return this.namespaceObject;
  }

  /** The expressions' variables, for the request seen as `resource` (its own or an equivalent), with `param`. */
  async activation(resource: GroupVersionResource, kind: GroupVersionKind, policy: CompiledPolicy, param: KubeObject | null): Promise<Activation> {
    const key = `${resource.group}/${resource.version}/${resource.resource}`;
    let base = this.activations.get(key);
    if (!base) {
      base = this.baseActivation(resource, kind);
      this.activations.set(key, base);
    }
    return policy.spec.paramKind ? withParams(await base, param) : base;
  }

  private async baseActivation(resource: GroupVersionResource, kind: GroupVersionKind): Promise<Activation> {
    const { attributes } = this;
    let { object, oldObject } = attributes;
    const own = this.match.resource;
    // Seen as another version of the resource: the objects in that version, as upstream converts them.
    if ((resource.group !== own.group || resource.version !== own.version) && !this.match.subresource && this.served) {
      const target = this.catalog.find(resource.group, resource.version, resource.resource);
      if (target) {
        if (object) object = await this.served.store.convertTo(object, target.store);
        if (oldObject) oldObject = await this.served.store.convertTo(oldObject, target.store);
      }
    }
    return policyActivation({
      object,
      oldObject,
      resource,
      kind,
      requestResource: own,
      requestKind: this.match.kind,
      subresource: this.match.subresource,
      name: attributes.name,
      namespace: this.namespace,
      operation: attributes.operation,
      user: this.user,
      dryRun: attributes.dryRun,
      options: attributes.options,
      namespaceObject: await this.namespaceOf(),
      authorizer: this.authorizer,
    });
  }
}

/** The resources that serve the same stored objects as `prefix` (upstream's equivalent resources). */
function equivalentResources(catalog: ResourceCatalog, prefix: string, subresource: string): EquivalentResource[] {
  return catalog
    .all()
    .filter(({ resolved }) => resolved.prefix('') === prefix && (!subresource || resolved.definition.subresources?.[subresource]))
    .map(({ resolved }) => {
      const kind = subresource ? (resolved.subresourceKinds.get(subresource) ?? resolved) : resolved;
      return { group: resolved.group, version: resolved.version, resource: resolved.resource, kind: { group: kind.group, version: kind.version, kind: kind.kind } };
    });
}

