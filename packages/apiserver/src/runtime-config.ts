// --runtime-config: which API versions and resources are served. Upstream's syntax: a list of
// key[=value], key one of api/all, api/ga, api/beta, api/alpha, <group>/<version> (the core group:
// v1 or api/v1) or <group>/<version>/<resource>; value true or false, omitted meaning true.
// The most specific key wins; with none, GA and beta versions are on and alpha versions off, except
// the versions their definitions say are off by default (upstream's beta APIs new since 1.24).
import type { ResourceDefinition } from '@plat/registry';
import { resolveGroup } from '@plat/registry';

export interface RuntimeConfigEntry {
  key: string;
  enabled: boolean;
}

const maturityKeys = new Set(['api/all', 'api/ga', 'api/beta', 'api/alpha']);

/** Syntax only (the keys are checked against the served APIs by `apiEnablement`); throws Error. */
export function parseRuntimeConfig(items: readonly string[]): RuntimeConfigEntry[] {
  return items.map((item) => {
    const eq = item.indexOf('=');
    const key = (eq === -1 ? item : item.slice(0, eq)).trim();
    const value = eq === -1 ? '' : item.slice(eq + 1).trim();
    if (!key) throw new Error(`${JSON.stringify(item)}: empty key`);
    if (value !== '' && value !== 'true' && value !== 'false') {
      throw new Error(`invalid value ${JSON.stringify(value)} of ${key}: must be true or false`);
    }
    const parts = key.split('/');
    if (!maturityKeys.has(key) && (parts.length < 1 || parts.length > 3 || parts.some((part) => !part))) {
      throw new Error(`${JSON.stringify(key)}: must be api/all, api/ga, api/beta, api/alpha, <group>/<version> or <group>/<version>/<resource>`);
    }
    return { key, enabled: value !== 'false' };
  });
}

export type Maturity = 'alpha' | 'beta' | 'ga';

const versionMaturity = (version: string): Maturity => (/^v\d+alpha\d+$/.test(version) ? 'alpha' : /^v\d+beta\d+$/.test(version) ? 'beta' : 'ga');

/** Whether (group, version, resource) is served; group as resolved ("" for the core group). */
export type ApiEnablement = (group: string, version: string, resource: string) => boolean;

/**
 * The enablement the entries give the definitions. A group may be named in the k8s.io form
 * (networking.k8s.io) whatever --api-domain is. Keys naming no served group version (or resource)
 * are an error, as upstream's.
 */
export function apiEnablement(entries: readonly RuntimeConfigEntry[], definitions: readonly ResourceDefinition[], domain: string): ApiEnablement {
  const served = new Set<string>();
  for (const definition of definitions) {
    const group = resolveGroup(definition.group, domain);
    served.add(gvKey(group, definition.version));
    served.add(`${gvKey(group, definition.version)}/${definition.resource}`);
  }
  const offByDefault = new Set<string>();
  for (const definition of definitions) {
    if (definition.servedByDefault === false) offByDefault.add(`${gvKey(resolveGroup(definition.group, domain), definition.version)}/${definition.resource}`);
  }
  const byKey = new Map<string, boolean>();
  for (const { key, enabled } of entries) {
    if (maturityKeys.has(key)) {
      byKey.set(key, enabled);
      continue;
    }
    const normalized = normalizeKey(key, domain);
    if (!served.has(normalized)) throw new Error(`unknown API ${JSON.stringify(key)}: no such group version or resource is served`);
    byKey.set(normalized, enabled);
  }
  return (group, version, resource) => {
    const gv = gvKey(group, version);
    return (
      byKey.get(`${gv}/${resource}`) ??
      byKey.get(gv) ??
      byKey.get(`api/${versionMaturity(version)}`) ??
      byKey.get('api/all') ??
      (versionMaturity(version) !== 'alpha' && !offByDefault.has(`${gv}/${resource}`))
    );
  };
}

/** "v1" for the core group's version, else "<group>/<version>". */
const gvKey = (group: string, version: string): string => (group ? `${group}/${version}` : version);

function normalizeKey(key: string, domain: string): string {
  const parts = key.split('/');
  // The core group: v1, api/v1, v1/<resource>, api/v1/<resource>.
  if (parts[0] === 'api' || (/^v\d/.test(parts[0]!) && !parts[0]!.includes('.'))) {
    return (parts[0] === 'api' ? parts.slice(1) : parts).join('/');
  }
  return [groupInDomain(parts[0]!, domain), ...parts.slice(1)].join('/');
}

/** A group named in the k8s.io form (networking.k8s.io) as served under --api-domain; others as they are. */
export function groupInDomain(group: string, domain: string): string {
  return group === 'k8s.io' ? domain : group.endsWith('.k8s.io') ? `${group.slice(0, -'.k8s.io'.length)}.${domain}` : group;
}
