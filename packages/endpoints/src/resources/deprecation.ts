// Requests of a deprecated API version or resource: upstream's Warning header, audit annotations
// and the apiserver_requested_deprecated_apis gauge.
import type { ResolvedResource } from '@plat/registry';
import type { RequestContext } from '@plat/filters';
import type { ServerMetrics } from '@plat/metrics';

/** Upstream's default text: "<group>/<version> <Kind> is deprecated in v<x>+, unavailable in v<removed>+; use <group>/<version> <Kind>". */
function deprecationWarning(resolved: ResolvedResource): string {
  const deprecated = resolved.definition.deprecated;
  if (deprecated?.warning) return deprecated.warning;
  const since = deprecated?.deprecatedRelease ? ` in v${deprecated.deprecatedRelease}+` : '';
  const removed = deprecated?.removedRelease ? `, unavailable in v${deprecated.removedRelease}+` : '';
  const group = resolved.group ? `${resolved.group}/` : '';
  const use = deprecated?.replacementVersion ? `; use ${group}${deprecated.replacementVersion} ${resolved.kind}` : '';
  return `${resolved.apiVersion} ${resolved.kind} is deprecated${since}${removed}${use}`;
}

/** A Warning header value: code 299, agent "-", the text quoted as an HTTP quoted-string. */
const warningHeader = (text: string): string => `299 - "${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

export function markDeprecated(ctx: RequestContext, resolved: ResolvedResource, subresource: string, domain: string, metrics: ServerMetrics): void {
  const deprecated = resolved.definition.deprecated;
  if (!deprecated) return;
  ctx.append('Warning', warningHeader(deprecationWarning(resolved)));
  const annotations = ctx.state.auditAnnotations;
  if (annotations) {
    annotations[`${domain}/deprecated`] = 'true';
    if (deprecated.removedRelease) annotations[`${domain}/removed-release`] = deprecated.removedRelease;
  }
  metrics.requestedDeprecatedApis.set(
    { group: resolved.group, version: resolved.version, resource: resolved.resource, subresource, removed_release: deprecated.removedRelease ?? '' },
    1,
  );
}
