// An in-memory index of Roles, ClusterRoles and their bindings, kept by subject (subject-index.ts),
// that finds the rules applying to a user in a namespace, compiled for decisions (compiled-rules.ts).
import { goQuote } from '@plat/apimachinery';
import { rbacGroup } from './domain.js';
import { cacheKey, compiledAdd, earliestAllowing, type CompiledRules } from './compiled-rules.js';
import { RuleSource, describeBinding } from './rule-source.js';
import { addToIndex, bindingNamesFor, matchSubjects, removeFromIndex, subjectKeys } from './subject-index.js';
import type { ClusterRole, RbacKind, RbacObjects, Role, RoleBinding } from './types.js';
import type { AccessAttributes, PolicyRule, RoleRef, UserInfo } from '@plat/apimachinery';

export { RuleSource } from './rule-source.js';

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

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = create()));
  return value;
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
