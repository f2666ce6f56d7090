// An in-memory index of Roles, ClusterRoles and their bindings, kept by subject, that finds the rules applying to a user in a namespace.
import { goQuote } from '@plat/apimachinery';
import { rbacGroup, serviceAccountUsername } from './domain.js';
import { nonResourceURLMatches, resourceNameMatches } from './rule-matching.js';
import type { ClusterRole, RbacKind, RbacObjects, Role, RoleBinding } from './types.js';
import type { AccessAttributes, PolicyRule, RoleRef, Subject, UserInfo } from '@plat/apimachinery';

/** The binding and subject through which a rule applies: upstream's clusterRoleBindingDescriber / roleBindingDescriber. */
export class RuleSource {
  private text: string | undefined;

  constructor(
    readonly bindingKind: 'ClusterRoleBinding' | 'RoleBinding',
    readonly binding: RoleBinding,
    /** The binding's first subject that applies to the user. */
    readonly subject: Subject,
  ) {}

  /** `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`, or `RoleBinding "x/ns" of Role "y" to ServiceAccount "sa/ns"`. */
  toString(): string {
    if (this.text !== undefined) return this.text;
    const { kind = '', name: roleName = '' } = this.binding.roleRef ?? {};
    const bindingNamespace = this.bindingKind === 'RoleBinding' ? (this.binding.metadata?.namespace ?? '') : '';
    this.text = `${describeBinding(this.bindingKind, this.binding)} of ${kind} ${goQuote(roleName)} to ${describeSubject(this.subject, bindingNamespace)}`;
    return this.text;
  }
}

/** Upstream prints a service account as "name/namespace". */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} ${goQuote(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  return `${subject.kind} ${goQuote(subject.name)}`;
}

/**
 * Called with each rule that applies (with its source), or with an error (rule and source
 * undefined): a binding's roleRef that does not resolve, or a subject naming the user that the
 * authorizer cannot honour. Returning false stops the visit.
 */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean;

export type RoleReferenceResult = { rules: PolicyRule[]; error?: undefined } | { rules?: undefined; error: string };

export interface RbacIndexOptions {
  /** --api-domain; names the RBAC group in "not found" errors. Default "plat.io". */
  domain?: string;
  /** How many (user, groups, namespace) rule sets to keep compiled for decisions. Default 4096. */
  decisionCacheSize?: number;
}

interface BindingRecord {
  binding: RoleBinding;
  /** Subject-index keys the binding is filed under. */
  keys: string[];
}

/** A rule in a compiled rule set, numbered in the order upstream's VisitRulesFor would visit it. */
interface CompiledEntry {
  ordinal: number;
  rule: PolicyRule;
  source: RuleSource;
}

/** A user's rules in one namespace, filed by verb, API group and resource pattern so that a decision looks up a few lists. */
interface CompiledRules {
  resource: Map<string, Map<string, Map<string, CompiledEntry[]>>>;
  nonResource: Map<string, CompiledEntry[]>;
  errors: string[];
}

const userKey = (name: string): string => `u${name}`;
const groupKey = (name: string): string => `g${name}`;

/**
 * The keys a subject is filed under, which the users it names also produce: user and
 * service-account subjects by user name, groups by group name. A subject of an unknown kind
 * applies to no one, but is filed under both its name as a user and as a group, so that a user it
 * might have meant is told about it (see subjectProblem).
 */
function subjectKeys(subject: Subject, bindingNamespace: string): string[] {
  switch (subject.kind) {
    case 'User':
      return [userKey(subject.name)];
    case 'Group':
      return [groupKey(subject.name)];
    case 'ServiceAccount': {
      // A RoleBinding's service accounts default to the binding's namespace; a ClusterRoleBinding's must name one.
      const namespace = subject.namespace || bindingNamespace;
      return namespace ? [userKey(serviceAccountUsername(namespace, subject.name))] : [];
    }
    default:
      return subject.name ? [userKey(subject.name), groupKey(subject.name)] : [];
  }
}

/** Whether a subject names the user by its kind: user and service accounts by user name, groups by membership. */
function namesUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const saNamespace = subject.namespace || namespace;
      return saNamespace !== '' && user.name === serviceAccountUsername(saNamespace, subject.name);
    }
    default:
      return false;
  }
}

/**
 * What the authorizer reports, instead of granting, for a subject that would name the user but is
 * malformed, as the Subject type asks: a User or Group with a namespace, or a kind it does not know
 * (named like the user or one of its groups). Upstream's authorizer ignores the namespace and
 * grants the User or Group, and skips an unknown kind silently. Validation, as upstream's, stores a
 * User or Group with a namespace but refuses an unknown kind, which can reach the index only
 * from outside the API.
 */
function subjectProblem(user: UserInfo, subject: Subject, namespace: string): string | undefined {
  switch (subject.kind) {
    case 'User':
    case 'Group':
      if (!subject.namespace || !namesUser(user, subject, namespace)) return undefined;
      return `${subject.kind} subject ${goQuote(subject.name)} cannot have a namespace: ${goQuote(subject.namespace)}`;
    case 'ServiceAccount':
      return undefined;
    default:
      if (user.name !== subject.name && !user.groups.includes(subject.name)) return undefined;
      return `subject ${goQuote(subject.name)} has an unsupported kind: ${goQuote(subject.kind ?? '')}`;
  }
}

/** The name a binding goes by in messages: `ClusterRoleBinding "x"` or `RoleBinding "x/ns"`, as RuleSource. */
function describeBinding(bindingKind: 'ClusterRoleBinding' | 'RoleBinding', binding: RoleBinding): string {
  const { name = '', namespace = '' } = binding.metadata ?? {};
  return `${bindingKind} ${goQuote(bindingKind === 'RoleBinding' ? `${name}/${namespace}` : name)}`;
}

/**
 * The binding's first subject that applies to the user (upstream's appliesToUser, which does not
 * look at a subject's apiGroup), and the problems of the malformed subjects that would otherwise
 * name the user: those never apply.
 */
function matchSubjects(user: UserInfo, subjects: readonly Subject[], namespace: string): { applying?: Subject; problems: string[] } {
  let applying: Subject | undefined;
  const problems: string[] = [];
  for (const subject of subjects) {
    const problem = subjectProblem(user, subject, namespace);
    if (problem !== undefined) problems.push(problem);
    else if (!applying && namesUser(user, subject, namespace)) applying = subject;
  }
  return { applying, problems };
}

function addToIndex(index: Map<string, Set<string>>, keys: readonly string[], name: string): void {
  for (const key of keys) {
    let names = index.get(key);
    if (!names) index.set(key, (names = new Set()));
    names.add(name);
  }
}

function removeFromIndex(index: Map<string, Set<string>>, keys: readonly string[], name: string): void {
  for (const key of keys) {
    const names = index.get(key);
    names?.delete(name);
    if (names?.size === 0) index.delete(key);
  }
}

/** Names of the bindings filed under any of the user's keys, sorted so that every replica visits them in the same order. */
function bindingNamesFor(index: Map<string, Set<string>> | undefined, user: UserInfo): string[] {
  if (!index) return [];
  const found = new Set<string>();
  const add = (names: Set<string> | undefined): void => names?.forEach((name) => found.add(name));
  add(index.get(userKey(user.name)));
  for (const group of user.groups) add(index.get(groupKey(group)));
  return [...found].sort();
}

/** Each value of `values` once, in order, without allocating for the usual short lists. */
function forEachDistinct(values: readonly string[] | undefined, visit: (value: string) => void): void {
  if (!values) return;
  for (let i = 0; i < values.length; i++) if (values.indexOf(values[i]!) === i) visit(values[i]!);
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = create()));
  return value;
}

function compiledAdd(compiled: CompiledRules, entry: CompiledEntry): void {
  const { rule } = entry;
  if (rule.apiGroups?.length && rule.resources?.length) {
    forEachDistinct(rule.verbs, (verb) => {
      let byGroup = compiled.resource.get(verb);
      if (!byGroup) compiled.resource.set(verb, (byGroup = new Map()));
      forEachDistinct(rule.apiGroups, (group) => {
        let byResource = byGroup.get(group);
        if (!byResource) byGroup.set(group, (byResource = new Map()));
        forEachDistinct(rule.resources, (resource) => {
          const list = byResource.get(resource);
          if (list) list.push(entry);
          else byResource.set(resource, [entry]);
        });
      });
    });
  }
  if (rule.nonResourceURLs?.length) {
    forEachDistinct(rule.verbs, (verb) => {
      const list = compiled.nonResource.get(verb);
      if (list) list.push(entry);
      else compiled.nonResource.set(verb, [entry]);
    });
  }
}

/** The earliest entry of `list` allowing the request's name that comes before `best`. Lists are in visit order. */
function earliestByName(list: CompiledEntry[] | undefined, name: string, best: CompiledEntry | undefined): CompiledEntry | undefined {
  if (!list) return best;
  for (const entry of list) {
    if (best && entry.ordinal >= best.ordinal) return best;
    if (resourceNameMatches(entry.rule, name)) return entry;
  }
  return best;
}

function earliestByPath(list: CompiledEntry[] | undefined, path: string, best: CompiledEntry | undefined): CompiledEntry | undefined {
  if (!list) return best;
  for (const entry of list) {
    if (best && entry.ordinal >= best.ordinal) return best;
    if (nonResourceURLMatches(entry.rule, path)) return entry;
  }
  return best;
}

function earliestForResource(
  byResource: Map<string, CompiledEntry[]> | undefined,
  attributes: AccessAttributes,
  best: CompiledEntry | undefined,
): CompiledEntry | undefined {
  if (!byResource) return best;
  const { resource, subresource, name } = attributes;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  best = earliestByName(byResource.get(combined), name, best);
  if (combined !== '*') best = earliestByName(byResource.get('*'), name, best);
  if (subresource) {
    const anyResource = `*/${subresource}`;
    if (anyResource !== combined) best = earliestByName(byResource.get(anyResource), name, best);
  }
  return best;
}

function earliestForVerb(
  byGroup: Map<string, Map<string, CompiledEntry[]>> | undefined,
  attributes: AccessAttributes,
  best: CompiledEntry | undefined,
): CompiledEntry | undefined {
  if (!byGroup) return best;
  best = earliestForResource(byGroup.get(attributes.apiGroup), attributes, best);
  if (attributes.apiGroup !== '*') best = earliestForResource(byGroup.get('*'), attributes, best);
  return best;
}

/** The first rule (in visit order) of a compiled set that allows the request; the same rule upstream's visit stops at. */
function earliestAllowing(compiled: CompiledRules, attributes: AccessAttributes): CompiledEntry | undefined {
  const { verb } = attributes;
  let best: CompiledEntry | undefined;
  if (attributes.isResourceRequest) {
    best = earliestForVerb(compiled.resource.get(verb), attributes, best);
    if (verb !== '*') best = earliestForVerb(compiled.resource.get('*'), attributes, best);
  } else {
    best = earliestByPath(compiled.nonResource.get(verb), attributes.path, best);
    if (verb !== '*') best = earliestByPath(compiled.nonResource.get('*'), attributes.path, best);
  }
  return best;
}

/** Length-prefixed so that no two different (user, groups, namespace) share a key. */
function cacheKey(user: UserInfo, namespace: string): string {
  let key = `${user.name.length}:${user.name}|${namespace.length}:${namespace}`;
  for (const group of user.groups) key += `|${group.length}:${group}`;
  return key;
}

/**
 * The four RBAC kinds, kept current by upsert and remove (fed from a watch), with bindings filed
 * by subject: a decision looks at the user's own bindings, never at all of them. Objects are kept
 * as given and must not be mutated afterwards; replace them with upsert.
 */
export class RbacIndex {
  readonly domain: string;
  private readonly cacheSize: number;
  private readonly clusterRoles = new Map<string, ClusterRole>();
  /** namespace → name → Role */
  private readonly roles = new Map<string, Map<string, Role>>();
  private readonly clusterRoleBindings = new Map<string, BindingRecord>();
  /** namespace → name → RoleBinding */
  private readonly roleBindings = new Map<string, Map<string, BindingRecord>>();
  /** subject key → ClusterRoleBinding names */
  private readonly clusterSubjects = new Map<string, Set<string>>();
  /** namespace → subject key → RoleBinding names */
  private readonly namespaceSubjects = new Map<string, Map<string, Set<string>>>();
  /** Compiled rule sets; emptied by every change, so never stale. */
  private readonly compiled = new Map<string, CompiledRules>();

  constructor(options: RbacIndexOptions = {}) {
    this.domain = options.domain ?? 'plat.io';
    this.cacheSize = Math.max(0, options.decisionCacheSize ?? 4096);
  }

  /** Adds or replaces an object, found by its metadata.namespace and metadata.name. */
  upsert<K extends RbacKind>(kind: K, object: RbacObjects[K]): void {
    const name = object.metadata?.name ?? '';
    const namespace = object.metadata?.namespace ?? '';
    switch (kind) {
      case 'ClusterRole':
        this.clusterRoles.set(name, object as ClusterRole);
        break;
      case 'Role':
        getOrCreate(this.roles, namespace, () => new Map<string, Role>()).set(name, object as Role);
        break;
      case 'ClusterRoleBinding':
        this.removeBinding(this.clusterRoleBindings, this.clusterSubjects, name);
        this.addBinding(this.clusterRoleBindings, this.clusterSubjects, object as RoleBinding, name, '');
        break;
      case 'RoleBinding': {
        const records = getOrCreate(this.roleBindings, namespace, () => new Map<string, BindingRecord>());
        const subjects = getOrCreate(this.namespaceSubjects, namespace, () => new Map<string, Set<string>>());
        this.removeBinding(records, subjects, name);
        this.addBinding(records, subjects, object as RoleBinding, name, namespace);
        break;
      }
      default:
        throw new TypeError(`unknown RBAC kind ${String(kind)}`);
    }
    this.compiled.clear();
  }

  /** Removes an object; `namespace` is ignored for the cluster-scoped kinds. Removing an absent object does nothing. */
  remove(kind: RbacKind, namespace: string, name: string): void {
    switch (kind) {
      case 'ClusterRole':
        this.clusterRoles.delete(name);
        break;
      case 'Role':
        this.roles.get(namespace)?.delete(name);
        if (this.roles.get(namespace)?.size === 0) this.roles.delete(namespace);
        break;
      case 'ClusterRoleBinding':
        this.removeBinding(this.clusterRoleBindings, this.clusterSubjects, name);
        break;
      case 'RoleBinding': {
        const records = this.roleBindings.get(namespace);
        const subjects = this.namespaceSubjects.get(namespace);
        if (records && subjects) this.removeBinding(records, subjects, name);
        if (records?.size === 0) this.roleBindings.delete(namespace);
        if (subjects?.size === 0) this.namespaceSubjects.delete(namespace);
        break;
      }
      default:
        throw new TypeError(`unknown RBAC kind ${String(kind)}`);
    }
    this.compiled.clear();
  }

  /** Forgets everything, as before a re-list. */
  clear(): void {
    for (const map of [this.clusterRoles, this.roles, this.clusterRoleBindings, this.roleBindings]) map.clear();
    this.clusterSubjects.clear();
    this.namespaceSubjects.clear();
    this.compiled.clear();
  }

  /** The objects of one kind (all namespaces), e.g. every ClusterRole for aggregateClusterRole. */
  list<K extends RbacKind>(kind: K): RbacObjects[K][] {
    const nested = <V>(map: Map<string, Map<string, V>>): V[] => [...map.values()].flatMap((inner) => [...inner.values()]);
    switch (kind) {
      case 'ClusterRole':
        return [...this.clusterRoles.values()] as RbacObjects[K][];
      case 'Role':
        return nested(this.roles) as RbacObjects[K][];
      case 'ClusterRoleBinding':
        return [...this.clusterRoleBindings.values()].map((r) => r.binding) as RbacObjects[K][];
      case 'RoleBinding':
        return nested(this.roleBindings).map((r) => r.binding) as RbacObjects[K][];
      default:
        throw new TypeError(`unknown RBAC kind ${String(kind)}`);
    }
  }

  /**
   * The rules a binding's roleRef grants, as upstream's GetRoleReferenceRules: a Role is looked up
   * in the binding's namespace ("" for a ClusterRoleBinding, where none is found). The error reads
   * as upstream's informer-backed authorizer reports it: `clusterrole.rbac.authorization.plat.io "x" not found`.
   */
  roleReferenceRules(roleRef: RoleRef, bindingNamespace: string): RoleReferenceResult {
    const name = roleRef?.name ?? '';
    switch (roleRef?.kind) {
      case 'Role': {
        const role = this.roles.get(bindingNamespace)?.get(name);
        return role ? { rules: role.rules ?? [] } : { error: `role.${rbacGroup(this.domain)} ${goQuote(name)} not found` };
      }
      case 'ClusterRole': {
        const role = this.clusterRoles.get(name);
        return role ? { rules: role.rules ?? [] } : { error: `clusterrole.${rbacGroup(this.domain)} ${goQuote(name)} not found` };
      }
      default:
        return { error: `unsupported role reference kind: ${goQuote(roleRef?.kind ?? '')}` };
    }
  }

  /**
   * Upstream's VisitRulesFor: the rules of every ClusterRoleBinding that applies to the user, then
   * (for a non-empty namespace) of every RoleBinding of that namespace that applies. Bindings are
   * visited in name order; an unresolvable roleRef, and a malformed subject naming the user, are
   * reported to the visitor (the subject's before the binding's rules), never thrown.
   */
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    if (!this.visitBindings('ClusterRoleBinding', this.clusterRoleBindings, this.clusterSubjects, user, '', visitor)) return;
    if (!namespace) return;
    const records = this.roleBindings.get(namespace);
    if (records) this.visitBindings('RoleBinding', records, this.namespaceSubjects.get(namespace), user, namespace, visitor);
  }

  /** Upstream's RulesFor: every rule that applies, and the errors met (roleRefs not resolved, malformed subjects). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule) rules.push(rule);
      if (error !== undefined) errors.push(error);
      return true;
    });
    return { rules, errors };
  }

  /**
   * The first rule, in visit order, allowing the request (with its source), and the resolution
   * errors of the namespace's bindings. Served from a compiled rule set per (user, groups,
   * namespace), built on first use after any change.
   */
  findAllowingRule(attributes: AccessAttributes): { rule?: PolicyRule; source?: RuleSource; errors: readonly string[] } {
    const compiled = this.compiledFor(attributes.user, attributes.namespace);
    const entry = earliestAllowing(compiled, attributes);
    return entry ? { rule: entry.rule, source: entry.source, errors: compiled.errors } : { errors: compiled.errors };
  }

  private compiledFor(user: UserInfo, namespace: string): CompiledRules {
    const key = cacheKey(user, namespace);
    const cached = this.compiled.get(key);
    if (cached) return cached;
    const compiled: CompiledRules = { resource: new Map(), nonResource: new Map(), errors: [] };
    let ordinal = 0;
    this.visitRulesFor(user, namespace, (source, rule, error) => {
      if (error !== undefined) compiled.errors.push(error);
      if (rule && source) compiledAdd(compiled, { ordinal: ordinal++, rule, source });
      return true;
    });
    if (this.cacheSize > 0) {
      // Oldest first out: insertion order is Map order.
      if (this.compiled.size >= this.cacheSize) this.compiled.delete(this.compiled.keys().next().value!);
      this.compiled.set(key, compiled);
    }
    return compiled;
  }

  private visitBindings(
    bindingKind: 'ClusterRoleBinding' | 'RoleBinding',
    records: Map<string, BindingRecord>,
    subjects: Map<string, Set<string>> | undefined,
    user: UserInfo,
    namespace: string,
    visitor: RuleVisitor,
  ): boolean {
    for (const name of bindingNamesFor(subjects, user)) {
      const binding = records.get(name)?.binding;
      if (!binding) continue;
      const { applying: subject, problems } = matchSubjects(user, binding.subjects ?? [], namespace);
      for (const problem of problems) {
        if (!visitor(undefined, undefined, `${describeBinding(bindingKind, binding)}: ${problem}`)) return false;
      }
      if (!subject) continue;
      const resolved = this.roleReferenceRules(binding.roleRef, namespace);
      if (resolved.error !== undefined) {
        if (!visitor(undefined, undefined, resolved.error)) return false;
        continue;
      }
      const source = new RuleSource(bindingKind, binding, subject);
      for (const rule of resolved.rules) if (!visitor(source, rule, undefined)) return false;
    }
    return true;
  }

  private addBinding(
    records: Map<string, BindingRecord>,
    index: Map<string, Set<string>>,
    binding: RoleBinding,
    name: string,
    namespace: string,
  ): void {
    const keys = [...new Set((binding.subjects ?? []).flatMap((s) => subjectKeys(s, namespace)))];
    records.set(name, { binding, keys });
    addToIndex(index, keys, name);
  }

  private removeBinding(records: Map<string, BindingRecord>, index: Map<string, Set<string>>, name: string): void {
    const record = records.get(name);
    if (!record) return;
    records.delete(name);
    removeFromIndex(index, record.keys, name);
  }
}
