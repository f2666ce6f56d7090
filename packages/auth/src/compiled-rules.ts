// A user's rules in one namespace compiled for decisions: filed by verb, API group and resource
// pattern, each numbered in visit order, so that a decision looks up a few short lists and finds
// the same first allowing rule as upstream's visit would.
import type { AccessAttributes, PolicyRule, UserInfo } from '@plat/apimachinery';
import { nonResourceURLMatches, resourceNameMatches } from './rule-matching.js';
import type { RuleSource } from './rule-source.js';

/** A rule in a compiled rule set, numbered in the order upstream's VisitRulesFor would visit it. */
export interface CompiledEntry {
  ordinal: number;
  rule: PolicyRule;
  source: RuleSource;
}

/** A user's rules in one namespace, filed by verb, API group and resource pattern so that a decision looks up a few lists. */
export interface CompiledRules {
  resource: Map<string, Map<string, Map<string, CompiledEntry[]>>>;
  nonResource: Map<string, CompiledEntry[]>;
  errors: string[];
}

/** Each value of `values` once, in order, without allocating for the usual short lists. */
function forEachDistinct(values: readonly string[] | undefined, visit: (value: string) => void): void {
  if (!values) return;
  for (let i = 0; i < values.length; i++) if (values.indexOf(values[i]!) === i) visit(values[i]!);
}

export function compiledAdd(compiled: CompiledRules, entry: CompiledEntry): void {
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
export function earliestAllowing(compiled: CompiledRules, attributes: AccessAttributes): CompiledEntry | undefined {
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
export function cacheKey(user: UserInfo, namespace: string): string {
  let key = `${user.name.length}:${user.name}|${namespace.length}:${namespace}`;
  for (const group of user.groups) key += `|${group.length}:${group}`;
  return key;
}
