// --audit-policy-file: the audit.<domain>/v1 Policy, checked as upstream checks it, and the level,
// stages and managed-fields choice the first matching rule gives a request (upstream's policy
// checker: a request no rule matches is not audited).
import { isDNS1123Subdomain, invalid, newPath, notSupported, aggregateMessage, type FieldError, type FieldPath } from '@plat/apimachinery';
import { parse as parseYaml } from 'yaml';

export const auditLevels = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = (typeof auditLevels)[number];
export const auditStages = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type AuditStage = (typeof auditStages)[number];

export interface AuditGroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface AuditPolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: AuditGroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  rules: AuditPolicyRule[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

/** What a rule is matched against: the authenticated user and the request's attributes. */
export interface AuditAttributes {
  user?: { name: string; groups: readonly string[] };
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
}

/** What the policy decides for one request. */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

/** Without --audit-policy-file: every request at Metadata, when it completes (this server's log before policies). */
export const defaultAuditPolicy: AuditPolicy = { rules: [{ level: 'Metadata' }], omitStages: ['RequestReceived', 'ResponseStarted'] };

const levelOrder: Record<AuditLevel, number> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

/** Whether `level` records at least as much as `least`. */
export const levelAtLeast = (level: AuditLevel, least: AuditLevel): boolean => levelOrder[level] >= levelOrder[least];

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(rule: AuditPolicyRule, attrs: AuditAttributes): boolean {
  if (!attrs.isResourceRequest) return false;
  // A cluster-scoped resource's namespace is "".
  if (rule.namespaces?.length && !rule.namespaces.includes(attrs.namespace)) return false;
  if (!rule.resources?.length) return true;
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  for (const groupResources of rule.resources) {
    if ((groupResources.group ?? '') !== attrs.apiGroup) continue;
    if (!groupResources.resources?.length) return true;
    if (groupResources.resourceNames?.length && !groupResources.resourceNames.includes(attrs.name)) continue;
    for (const resource of groupResources.resources) {
      if (resource === '*' || resource === combined) return true;
      if (attrs.subresource && resource.startsWith('*/') && resource.slice(2) === attrs.subresource) return true;
      if (resource.endsWith('/*') && resource.slice(0, -2) === attrs.resource) return true;
    }
  }
  return false;
}

function ruleMatches(rule: AuditPolicyRule, attrs: AuditAttributes): boolean {
  if (rule.users?.length && (!attrs.user || !rule.users.includes(attrs.user.name))) return false;
  if (rule.userGroups?.length && !attrs.user?.groups.some((group) => rule.userGroups!.includes(group))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(attrs.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) return resourceMatches(rule, attrs);
  if (rule.nonResourceURLs?.length) return !attrs.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(attrs.path, spec));
  return true;
}

/** The first matching rule's level, the policy's and the rule's omitted stages, and the rule's (else the policy's) omitManagedFields. */
export function evaluateAuditPolicy(policy: AuditPolicy, attrs: AuditAttributes): RequestAuditConfig {
  const rule = policy.rules.find((candidate) => ruleMatches(candidate, attrs));
  if (!rule) return { level: 'None', omitStages: new Set(), omitManagedFields: false };
  return {
    level: rule.level,
    omitStages: new Set([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])]),
    omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
  };
}

// Decoding: the shape of each field, then upstream's validation rules.

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function strings(errors: FieldError[], path: FieldPath, value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    errors.push(invalid(path, value, 'must be a list of strings'));
    return undefined;
  }
  return value as string[];
}

function stages(errors: FieldError[], path: FieldPath, value: unknown): AuditStage[] | undefined {
  const list = strings(errors, path, value);
  list?.forEach((stage, i) => {
    if (!(auditStages as readonly string[]).includes(stage)) errors.push(invalid(path.index(i), stage, `allowed stages are ${auditStages.join(',')}`));
  });
  return list as AuditStage[] | undefined;
}

function bool(errors: FieldError[], path: FieldPath, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') {
    errors.push(invalid(path, value, 'must be a boolean'));
    return undefined;
  }
  return value;
}

function groupResources(errors: FieldError[], path: FieldPath, value: unknown): AuditGroupResources[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    errors.push(invalid(path, value, 'must be a list'));
    return undefined;
  }
  return value.map((item: unknown, i) => {
    const at = path.index(i);
    if (!isObject(item)) {
      errors.push(invalid(at, item, 'must be an object'));
      return {};
    }
    const group = item.group ?? '';
    if (typeof group !== 'string') errors.push(invalid(at.child('group'), group, 'must be a string'));
    // The empty group is the core group; others are DNS subdomains, lower case.
    else if (group) for (const message of isDNS1123Subdomain(group)) errors.push(invalid(at.child('group'), group, message));
    const resources = strings(errors, at.child('resources'), item.resources);
    const resourceNames = strings(errors, at.child('resourceNames'), item.resourceNames);
    if (resourceNames?.length && !resources?.length) errors.push(invalid(at.child('resourceNames'), resourceNames, 'using resourceNames requires at least one resource'));
    return { ...(typeof group === 'string' && { group }), ...(resources && { resources }), ...(resourceNames && { resourceNames }) };
  });
}

function rule(errors: FieldError[], path: FieldPath, value: unknown): AuditPolicyRule {
  if (!isObject(value)) {
    errors.push(invalid(path, value, 'must be an object'));
    return { level: 'None' };
  }
  const level = value.level;
  if (!(auditLevels as readonly unknown[]).includes(level)) errors.push(notSupported(path.child('level'), level ?? '', auditLevels));
  const nonResourceURLs = strings(errors, path.child('nonResourceURLs'), value.nonResourceURLs);
  const resources = groupResources(errors, path.child('resources'), value.resources);
  const namespaces = strings(errors, path.child('namespaces'), value.namespaces);
  if (nonResourceURLs?.length && (resources?.length || namespaces?.length)) {
    errors.push(invalid(path.child('nonResourceURLs'), nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
  }
  nonResourceURLs?.forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) errors.push(invalid(path.child('nonResourceURLs').index(i), url, "non-resource URL rules must begin with a '/' character"));
    if (url.slice(0, -1).includes('*')) errors.push(invalid(path.child('nonResourceURLs').index(i), url, "non-resource URL wildcards '*' must be the final character of the rule"));
  });
  const users = strings(errors, path.child('users'), value.users);
  const userGroups = strings(errors, path.child('userGroups'), value.userGroups);
  const verbs = strings(errors, path.child('verbs'), value.verbs);
  const omitStages = stages(errors, path.child('omitStages'), value.omitStages);
  const omitManagedFields = bool(errors, path.child('omitManagedFields'), value.omitManagedFields);
  return {
    level: level as AuditLevel,
    ...(users && { users }),
    ...(userGroups && { userGroups }),
    ...(verbs && { verbs }),
    ...(resources && { resources }),
    ...(namespaces && { namespaces }),
    ...(nonResourceURLs && { nonResourceURLs }),
    ...(omitStages && { omitStages }),
    ...(omitManagedFields !== undefined && { omitManagedFields }),
  };
}

/** A policy file's text (YAML or JSON) as a checked Policy; throws an Error saying every problem. */
export function parseAuditPolicy(text: string, domain: string): AuditPolicy {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new Error(`failed decoding: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(document)) throw new Error('failed decoding: the file holds no Policy object');
  const apiVersion = `audit.${domain}/v1`;
  if (document.apiVersion !== apiVersion || document.kind !== 'Policy') {
    throw new Error(`failed decoding: expected apiVersion ${apiVersion} and kind Policy, got ${JSON.stringify(document.apiVersion ?? '')} and ${JSON.stringify(document.kind ?? '')}`);
  }
  const errors: FieldError[] = [];
  const rules = Array.isArray(document.rules) ? document.rules.map((item: unknown, i) => rule(errors, newPath('rules').index(i), item)) : [];
  if (document.rules !== undefined && document.rules !== null && !Array.isArray(document.rules)) errors.push(invalid(newPath('rules'), document.rules, 'must be a list'));
  const omitStages = stages(errors, newPath('omitStages'), document.omitStages);
  const omitManagedFields = bool(errors, newPath('omitManagedFields'), document.omitManagedFields);
  if (errors.length) throw new Error(`invalid audit policy: ${aggregateMessage(errors)}`);
  // Upstream refuses a policy that could audit nothing.
  if (!rules.length) throw new Error('loaded illegal policy with 0 rules');
  return { rules, ...(omitStages && { omitStages }), ...(omitManagedFields !== undefined && { omitManagedFields }) };
}
