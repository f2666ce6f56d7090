// Whether one PolicyRule allows one request, as upstream's RuleAllows and the rbac/v1 evaluation helpers.
import type { AccessAttributes, PolicyRule } from '@plat/apimachinery';

export const verbMatches = (rule: PolicyRule, verb: string): boolean =>
  (rule.verbs ?? []).some((v) => v === '*' || v === verb);

export const apiGroupMatches = (rule: PolicyRule, group: string): boolean =>
  (rule.apiGroups ?? []).some((g) => g === '*' || g === group);

// `combined` is "resource" or "resource/subresource"; a rule resource "*/sub" matches subresource sub of any resource.
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** An empty resourceNames list allows every name (including none, as for list or create). */
export const resourceNameMatches = (rule: PolicyRule, name: string): boolean =>
  !rule.resourceNames?.length || rule.resourceNames.includes(name);

/** A URL ending in "*" matches every path it prefixes (all trailing "*" removed), as upstream does. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(trimTrailingStars(url))) return true;
  }
  return false;
}

export function trimTrailingStars(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '*') end--;
  return url.slice(0, end);
}

export function ruleAllows(attributes: AccessAttributes, rule: PolicyRule): boolean {
  if (attributes.isResourceRequest) {
    const combined = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
    return (
      verbMatches(rule, attributes.verb) &&
      apiGroupMatches(rule, attributes.apiGroup) &&
      resourceMatches(rule, combined, attributes.subresource) &&
      resourceNameMatches(rule, attributes.name)
    );
  }
  return verbMatches(rule, attributes.verb) && nonResourceURLMatches(rule, attributes.path);
}
