// The Protobuf representation (conventions 2.5, 4.4): its media type under the API domain, and
// which resources have it (those whose definition names its message).
import type { ResolvedResource } from '@plat/registry';
import type { ProtobufBody } from './body.js';

/** application/vnd.plat.protobuf, or Kubernetes' application/vnd.kubernetes.protobuf. */
export function protobufMediaType(domain: string): string {
  const name = domain === 'k8s.io' ? 'kubernetes' : (domain.split('.')[0] ?? domain);
  return `application/vnd.${name}.protobuf`;
}

export function resourceHasProtobuf(resolved: ResolvedResource): boolean {
  return resolved.definition.protobuf !== undefined;
}

/** What a Protobuf request body of this resource must be, or undefined when it has no such form. */
export function protobufBodyOf(resolved: ResolvedResource, domain: string): ProtobufBody | undefined {
  if (!resourceHasProtobuf(resolved)) return undefined;
  return { mediaType: protobufMediaType(domain), group: resolved.group, version: resolved.version, kind: resolved.kind };
}
