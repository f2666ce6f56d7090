// The ValidatingAdmissionPolicy admission plugin (validating phase), as upstream's
// validatingadmissionpolicy controller's Validate: for each policy whose constraints select the
// request, each of its bindings that selects it too is evaluated with each of its parameter
// objects; failed validations are refused (Deny), returned as warnings (Warn) or written to the
// audit event (Audit), and a policy's audit annotations are added. A request no policy can select
// (the index by resource name) is done after one map lookup. Each validation that fails (or errs)
// is counted and timed in apiserver_validating_admission_policy_check_* (policy-metrics.ts) as 1.28
// counts it.
import { StatusError, isStatusError, labelSelectorFromObject, newForbidden, type GroupResource } from '@plat/apimachinery';
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
  type GroupVersionKind,
  type GroupVersionResource,
  type MatchRequest,
  type ParamKind,
  type PolicyAuthorizer,
  type PolicyDecision,
  type ValidatingAdmissionPolicyBinding,
} from '@plat/api';
import { AdmissionRequestView, type RequestViewSources } from '@plat/admission';
import { catalogRequestSources } from '../request-sources.js';
import type { AdmissionAttributes, StoreCheck, KubeObject } from '@plat/registry';
import type { ResourceCatalog, ServedResource } from '@plat/endpoints';
import type { BindingCheckMetrics, EnforcementAction, PolicyMetrics } from './policy-metrics.js';
import type { BoundPolicy, PolicySource } from './policy-source.js';

/** Upstream's maxAuditAnnotationValueLength. */
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;
/** How long a request waits for the policies to be listed before it is refused (upstream's WaitForReady). */
const READY_WAIT_MS = 10_000;

/** The identity of the server's own writes (upstream's loopback client). */

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
  /** What the chain's request view reads of the server. */
  private readonly sources: RequestViewSources;

  constructor(private readonly options: PolicyAdmissionOptions) {
    this.policyGroup = `admissionregistration.${options.domain}`;
    this.sources = catalogRequestSources(options.catalog);
  }

  /** Returns at once (no promise) for a request no policy can select. */
  readonly admission: StoreCheck = (attributes) => {
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
    const request = new AdmissionRequestView(attributes, this.sources);
    const activations = new PolicyActivations(request, this.options.authorizer);
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
        definition = await matches(policy.matchConstraints, request);
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
          if (!(await this.bindingSelects(binding, request))) continue;
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
          const activation = await activations.activation(definition.resource, definition.kind, policy, param);
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
 * The policies' variables for one request (the chain's view of it), made when first needed for
 * each resource version a policy matched it as, then kept.
 */
class PolicyActivations {
  private readonly byResource = new Map<string, Promise<Activation>>();

  constructor(
    private readonly view: AdmissionRequestView,
    private readonly authorizer: PolicyAuthorizer,
  ) {}

  /** The expressions' variables, for the request seen as `resource` (its own or an equivalent), with `param`. */
  async activation(resource: GroupVersionResource, kind: GroupVersionKind, policy: CompiledPolicy, param: KubeObject | null): Promise<Activation> {
    const key = `${resource.group}/${resource.version}/${resource.resource}`;
    let base = this.byResource.get(key);
    if (!base) {
      base = this.base(resource, kind);
      this.byResource.set(key, base);
    }
    return policy.spec.paramKind ? withParams(await base, param) : base;
  }

  private async base(resource: GroupVersionResource, kind: GroupVersionKind): Promise<Activation> {
    const { view } = this;
    const { object, oldObject } = await view.objectsAs(resource);
    return policyActivation({
      object,
      oldObject,
      request: view.admissionRequest({ resource, kind }),
      requestResource: view.resource,
      subresource: view.subresource,
      namespace: view.namespace,
      name: view.name,
      user: view.user,
      namespaceObject: await view.namespaceObject(),
      authorizer: this.authorizer,
    });
  }
}

