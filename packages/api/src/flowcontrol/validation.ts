// Upstream 1.28's rules for FlowSchema and PriorityLevelConfiguration (pkg/apis/flowcontrol/
// validation), with its messages and paths. Objects are judged in their v1beta3 form, as upstream
// judges the internal one, except that a v1beta2 request's Limited shares are reported under
// v1beta2's name (upstream's getVersionedFieldNameForConcurrencyShares). The mandatory objects
// (exempt and catch-all, @plat/flowcontrol's built-in copies) must keep their fixed spec; the
// exempt level's spec.exempt alone may change.
import {
  duplicate,
  forbidden,
  GoFormatted,
  goQuote,
  goStringSlice,
  invalid,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  newPath,
  notSupported,
  required,
  type FieldError,
  type FieldPath,
} from '@plat/apimachinery';
import {
  MAX_HASH_BITS,
  mandatoryFlowSchemaCatchAll,
  mandatoryFlowSchemaExempt,
  mandatoryPriorityLevelCatchAll,
  mandatoryPriorityLevelExempt,
  NAME_ALL,
  requiredEntropyBits,
} from '@plat/flowcontrol';
import type {
  ExemptInput,
  FlowControlStatus,
  FlowSchemaObject,
  FlowSchemaSpecInput,
  LimitedInput,
  LimitResponseInput,
  PriorityLevelConfigurationObject,
  PriorityLevelConfigurationSpecInput,
  QueuingInput,
  RuleInput,
  SubjectInput,
} from './types.js';

export const FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE = 10000;
const MAX_QUEUES = 10_000_000;

// Upstream's sets, listed sorted as sets.List() gives them.
const supportedVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const supportedSubjectKinds = ['Group', 'ServiceAccount', 'User'];
const supportedDistinguisherMethods = ['ByNamespace', 'ByUser'];
const supportedPriorityLevelEnablement = ['Exempt', 'Limited'];
const supportedLimitResponseTypes = ['Queue', 'Reject'];

const nsErrIntro = "each member of this list must be '*' or a DNS-1123 label; ";

const hasWildcard = (values: readonly string[]): boolean => values.includes('*');
const slice = (values: readonly string[]): GoFormatted => new GoFormatted(goStringSlice(values));

function validateSubject(subject: SubjectInput, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const kind = subject.kind ?? '';
  const userForbidden = (): void => {
    if (subject.user) errors.push(forbidden(path.child('user'), "user is forbidden when subject kind is not 'User'"));
  };
  const groupForbidden = (): void => {
    if (subject.group) errors.push(forbidden(path.child('group'), "group is forbidden when subject kind is not 'Group'"));
  };
  const serviceAccountForbidden = (): void => {
    if (subject.serviceAccount) errors.push(forbidden(path.child('serviceAccount'), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"));
  };
  switch (kind) {
    case 'ServiceAccount': {
      const account = subject.serviceAccount;
      const at = path.child('serviceAccount');
      if (!account) errors.push(required(at, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = account.name ?? '';
        if (!name) errors.push(required(at.child('name')));
        else if (name !== NAME_ALL) for (const message of nameIsDNSSubdomain(name, false)) errors.push(invalid(at.child('name'), name, message));
        const namespace = account.namespace ?? '';
        if (namespace) for (const message of nameIsDNSLabel(namespace, false)) errors.push(invalid(at.child('namespace'), namespace, message));
        else errors.push(required(at.child('namespace'), 'must specify namespace for service account'));
      }
      userForbidden();
      groupForbidden();
      break;
    }
    case 'User':
      if (!subject.user) errors.push(required(path.child('user'), "user is required when subject kind is 'User'"));
      else if (!subject.user.name) errors.push(required(path.child('user', 'name')));
      serviceAccountForbidden();
      groupForbidden();
      break;
    case 'Group':
      if (!subject.group) errors.push(required(path.child('group'), "group is required when subject kind is 'Group'"));
      else if (!subject.group.name) errors.push(required(path.child('group', 'name')));
      serviceAccountForbidden();
      userForbidden();
      break;
    default:
      errors.push(notSupported(path.child('kind'), kind, supportedSubjectKinds));
  }
  return errors;
}

/** A rule's verbs: at least one, '*' alone, or upstream's supported verbs. */
function validateVerbs(verbs: readonly string[], path: FieldPath): FieldError[] {
  if (!verbs.length) return [required(path, 'verbs must contain at least one value')];
  if (hasWildcard(verbs)) return verbs.length > 1 ? [invalid(path, slice(verbs), "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((verb) => supportedVerbs.includes(verb)) ? [] : [notSupported(path, slice(verbs), supportedVerbs)];
}

/**
 * A non-resource URL: "/" alone, or a path from a slash, without white space or double slashes,
 * with "*" only as a last "/*" (upstream's ValidateNonResourceURLPath).
 */
function nonResourceURLError(url: string, path: FieldPath): FieldError | undefined {
  if (!url) return invalid(path, url, 'must not be empty');
  if (url === '/') return undefined;
  if (!url.startsWith('/')) return invalid(path, url, 'must start with slash');
  if (url.includes(' ')) return invalid(path, url, 'must not contain white-space');
  if (url.includes('//')) return invalid(path, url, 'must not contain double slash');
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith('/*'))) return invalid(path, url, 'wildcard can only do suffix matching');
  return undefined;
}

function validateRule(rule: RuleInput, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const subjects = rule.subjects ?? [];
  if (subjects.length) subjects.forEach((subject, i) => errors.push(...validateSubject(subject, path.child('subjects').index(i))));
  else errors.push(required(path.child('subjects'), 'subjects must contain at least one value'));
  const resourceRules = rule.resourceRules ?? [];
  const nonResourceRules = rule.nonResourceRules ?? [];
  if (!resourceRules.length && !nonResourceRules.length) errors.push(required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  resourceRules.forEach((resourceRule, i) => {
    const at = path.child('resourceRules').index(i);
    errors.push(...validateVerbs(resourceRule.verbs ?? [], at.child('verbs')));
    const apiGroups = resourceRule.apiGroups ?? [];
    if (!apiGroups.length) errors.push(required(at.child('apiGroups'), 'resource rules must supply at least one api group'));
    else if (apiGroups.length > 1 && hasWildcard(apiGroups)) errors.push(invalid(at.child('apiGroups'), slice(apiGroups), "if '*' is present, must not specify other api groups"));
    const resources = resourceRule.resources ?? [];
    if (!resources.length) errors.push(required(at.child('resources'), 'resource rules must supply at least one resource'));
    else if (resources.length > 1 && hasWildcard(resources)) errors.push(invalid(at.child('resources'), slice(resources), "if '*' is present, must not specify other resources"));
    const namespaces = resourceRule.namespaces ?? [];
    if (!namespaces.length && !resourceRule.clusterScope) {
      errors.push(required(at.child('namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace'));
    } else if (hasWildcard(namespaces)) {
      if (namespaces.length > 1) errors.push(invalid(at.child('namespaces'), slice(namespaces), "if '*' is present, must not specify other namespaces"));
    } else {
      namespaces.forEach((namespace, j) => {
        for (const message of nameIsDNSLabel(namespace, false)) errors.push(invalid(at.child('namespaces').index(j), namespace, nsErrIntro + message));
      });
    }
  });
  nonResourceRules.forEach((nonResourceRule, i) => {
    const at = path.child('nonResourceRules').index(i);
    errors.push(...validateVerbs(nonResourceRule.verbs ?? [], at.child('verbs')));
    const urls = nonResourceRule.nonResourceURLs ?? [];
    if (!urls.length) errors.push(required(at.child('nonResourceURLs'), 'nonResourceURLs must contain at least one value'));
    else if (hasWildcard(urls)) {
      if (urls.length > 1) errors.push(invalid(at.child('nonResourceURLs'), slice(urls), "if '*' is present, must not specify other non-resource URLs"));
    } else {
      urls.forEach((url, j) => {
        const error = nonResourceURLError(url, at.child('nonResourceURLs').index(j));
        if (error) errors.push(error);
      });
    }
  });
  return errors;
}

/** upstream's ValidateFlowSchemaSpec: precedence, distinguisher, level reference, rules. */
export function validateFlowSchemaSpec(name: string, spec: FlowSchemaSpecInput, path: FieldPath = newPath('spec')): FieldError[] {
  const errors: FieldError[] = [];
  const precedence = spec.matchingPrecedence ?? 0;
  if (precedence <= 0) errors.push(invalid(path.child('matchingPrecedence'), precedence, 'must be a positive value'));
  if (precedence > FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE) {
    errors.push(invalid(path.child('matchingPrecedence'), precedence, `must not be greater than ${FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE}`));
  }
  if (precedence === 1 && name !== 'exempt') errors.push(invalid(path.child('matchingPrecedence'), precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const method = spec.distinguisherMethod;
  if (method && !supportedDistinguisherMethods.includes(method.type ?? '')) {
    // Go prints the struct the pointer points to: flowcontrol.FlowDistinguisherMethod{Type:"ByFoo"}.
    const value = new GoFormatted(`flowcontrol.FlowDistinguisherMethod{Type:${goQuote(method.type ?? '')}}`);
    errors.push(notSupported(path.child('distinguisherMethod', 'type'), value, supportedDistinguisherMethods));
  }
  const level = spec.priorityLevelConfiguration?.name ?? '';
  if (level) for (const message of nameIsDNSSubdomain(level, false)) errors.push(invalid(path.child('priorityLevelConfiguration', 'name'), level, message));
  else errors.push(required(path.child('priorityLevelConfiguration', 'name'), 'must reference a priority level'));
  (spec.rules ?? []).forEach((rule, i) => errors.push(...validateRule(rule, path.child('rules').index(i))));
  return errors;
}

/** Duplicate and empty condition types (upstream's ValidateFlowSchemaStatus and ValidatePriorityLevelConfigurationStatus). */
export function validateFlowControlStatus(status: FlowControlStatus | undefined, path: FieldPath = newPath('status')): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (status?.conditions ?? []).forEach((condition, i) => {
    const type = condition.type ?? '';
    const at = path.child('conditions').index(i);
    if (seen.has(type)) errors.push(duplicate(at.child('type'), type));
    seen.add(type);
    if (!type) errors.push(required(at.child('type'), 'must not be empty'));
  });
  return errors;
}

/**
 * A spec as Go's semantic equality sees it: the zero values of plain fields (false, "", 0, empty
 * lists) are absent, while a set pointer (an object; lendablePercent, borrowingLimitPercent and the
 * exempt struct's shares, even 0) is kept.
 */
function comparable(value: unknown, key = '', parent = ''): unknown {
  if (Array.isArray(value)) return value.length ? value.map((item) => comparable(item)) : undefined;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const kept = comparable(v, k, key);
      if (kept !== undefined) out[k] = kept;
    }
    return out;
  }
  const pointer = key === 'lendablePercent' || key === 'borrowingLimitPercent' || (parent === 'exempt' && key === 'nominalConcurrencyShares');
  if (!pointer && (value === false || value === '' || value === 0)) return undefined;
  return value;
}

const semanticallyEqual = (a: unknown, b: unknown): boolean => JSON.stringify(sortKeys(comparable(a))) === JSON.stringify(sortKeys(comparable(b)));

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}

const mandatoryFlowSchemas: Record<string, FlowSchemaSpecInput> = { exempt: mandatoryFlowSchemaExempt.spec, 'catch-all': mandatoryFlowSchemaCatchAll.spec };
const mandatoryPriorityLevels: Record<string, PriorityLevelConfigurationSpecInput> = {
  exempt: mandatoryPriorityLevelExempt.spec,
  'catch-all': mandatoryPriorityLevelCatchAll.spec,
};

/** upstream's ValidateFlowSchema beyond ObjectMeta (the store's): the spec, the mandatory ones' fixed spec, the status. */
export function validateFlowSchema(flowSchema: FlowSchemaObject): FieldError[] {
  const name = flowSchema.metadata.name ?? '';
  const spec = flowSchema.spec ?? {};
  const errors = validateFlowSchemaSpec(name, spec);
  const mandatory = Object.hasOwn(mandatoryFlowSchemas, name) ? mandatoryFlowSchemas[name] : undefined;
  if (mandatory && !semanticallyEqual(spec, mandatory)) errors.push(invalid(newPath('spec'), spec, `spec of '${name}' must equal the fixed value`));
  errors.push(...validateFlowControlStatus(flowSchema.status));
  return errors;
}

function validateQueuing(queuing: QueuingInput, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const lengthLimit = queuing.queueLengthLimit ?? 0;
  if (lengthLimit <= 0) errors.push(invalid(path.child('queueLengthLimit'), lengthLimit, 'must be positive'));
  const queues = queuing.queues ?? 0;
  if (queues <= 0) errors.push(invalid(path.child('queues'), queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errors.push(invalid(path.child('queues'), queues, `must not be greater than ${MAX_QUEUES}`));
  const handSize = queuing.handSize ?? 0;
  if (handSize <= 0) errors.push(invalid(path.child('handSize'), handSize, 'must be positive'));
  else if (handSize > queues) errors.push(invalid(path.child('handSize'), handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errors.push(invalid(path.child('handSize'), handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errors;
}

function validateLimitResponse(response: LimitResponseInput, path: FieldPath): FieldError[] {
  const type = response.type ?? '';
  switch (type) {
    case 'Reject':
      return response.queuing ? [forbidden(path.child('queuing'), 'must be nil if limited.limitResponse.type is not Limited')] : [];
    case 'Queue':
      return response.queuing
        ? validateQueuing(response.queuing, path.child('queuing'))
        : [required(path.child('queuing'), 'must not be empty if limited.limitResponse.type is Limited')];
    default:
      return [notSupported(path.child('type'), type, supportedLimitResponseTypes)];
  }
}

/** `sharesField` names the shares as the request's version does (assuredConcurrencyShares for v1beta2). */
function validateLimited(limited: LimitedInput, sharesField: string, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const shares = limited.nominalConcurrencyShares ?? 0;
  if (shares <= 0) errors.push(invalid(path.child(sharesField), shares, 'must be positive'));
  errors.push(...validateLimitResponse(limited.limitResponse ?? {}, path.child('limitResponse')));
  const lendable = limited.lendablePercent;
  if (lendable !== undefined && !(lendable >= 0 && lendable <= 100)) errors.push(invalid(path.child('lendablePercent'), lendable, 'must be between 0 and 100, inclusive'));
  const borrowing = limited.borrowingLimitPercent;
  if (borrowing !== undefined && borrowing < 0) errors.push(invalid(path.child('borrowingLimitPercent'), borrowing, 'if specified, must be a non-negative integer'));
  return errors;
}

function validateExempt(exempt: ExemptInput, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const shares = exempt.nominalConcurrencyShares;
  if (shares !== undefined && shares < 0) errors.push(invalid(path.child('nominalConcurrencyShares'), shares, 'must be a non-negative integer'));
  const lendable = exempt.lendablePercent;
  if (lendable !== undefined && !(lendable >= 0 && lendable <= 100)) errors.push(invalid(path.child('lendablePercent'), lendable, 'must be between 0 and 100, inclusive'));
  return errors;
}

/** upstream's ValidatePriorityLevelConfigurationSpec, the spec in its v1beta3 form. */
export function validatePriorityLevelConfigurationSpec(
  spec: PriorityLevelConfigurationSpecInput,
  name: string,
  sharesField = 'nominalConcurrencyShares',
  path: FieldPath = newPath('spec'),
): FieldError[] {
  const errors: FieldError[] = [];
  const type = spec.type ?? '';
  if ((name === 'exempt') !== (type === 'Exempt')) errors.push(invalid(path.child('type'), type, "type must be 'Exempt' if and only if name is 'exempt'"));
  switch (type) {
    case 'Exempt':
      if (spec.limited) errors.push(forbidden(path.child('limited'), 'must be nil if the type is not Limited'));
      if (spec.exempt) errors.push(...validateExempt(spec.exempt, path.child('exempt')));
      break;
    case 'Limited':
      if (spec.exempt) errors.push(forbidden(path.child('exempt'), 'must be nil if the type is Limited'));
      if (!spec.limited) errors.push(required(path.child('limited'), 'must not be empty when type is Limited'));
      else errors.push(...validateLimited(spec.limited, sharesField, path.child('limited')));
      break;
    default:
      errors.push(notSupported(path.child('type'), type, supportedPriorityLevelEnablement));
  }
  return errors;
}

/**
 * The mandatory levels' fixed spec (upstream's ValidateIfMandatoryPriorityLevelConfigurationObject):
 * catch-all's whole spec; exempt's but for spec.exempt, which an administrator may tune.
 */
function validateMandatoryPriorityLevel(name: string, spec: PriorityLevelConfigurationSpecInput): FieldError[] {
  const mandatory = Object.hasOwn(mandatoryPriorityLevels, name) ? mandatoryPriorityLevels[name] : undefined;
  if (!mandatory) return [];
  if (name === 'exempt') {
    const have = { ...spec, exempt: mandatory.exempt };
    return semanticallyEqual(have, mandatory) ? [] : [invalid(newPath('spec'), spec, "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value")];
  }
  return semanticallyEqual(spec, mandatory) ? [] : [invalid(newPath('spec'), spec, `spec of '${name}' must equal the fixed value`)];
}

/**
 * upstream's ValidatePriorityLevelConfiguration beyond ObjectMeta, of the v1beta3 form; `sharesField`
 * is the request's version's name for the Limited shares.
 */
export function validatePriorityLevelConfiguration(level: PriorityLevelConfigurationObject, sharesField = 'nominalConcurrencyShares'): FieldError[] {
  const name = level.metadata.name ?? '';
  const spec = level.spec ?? {};
  return [...validatePriorityLevelConfigurationSpec(spec, name, sharesField), ...validateMandatoryPriorityLevel(name, spec), ...validateFlowControlStatus(level.status)];
}
