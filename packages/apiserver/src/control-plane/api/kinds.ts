// The kinds wired with what this server gives them (@plat/api KindWiring): --event-ttl for the
// Events, which groups are built in for CustomResourceDefinitions, and the token services for
// TokenReview and TokenRequest (the latter only where tokens are issued). The store is told none of it.
import { wireKinds, type BuiltinKind, type ServiceAllocationWiring } from '@plat/api';
import type { ResourceDefinition } from '@plat/registry';
import type { TokenServices } from '../../auth/virtual-services.js';

export interface KindSources {
  /** --event-ttl in whole seconds. */
  eventTTLSeconds: number;
  /** Whether the server's built-in kinds have the group (read per request: the catalog is built from these kinds). */
  builtInGroup(group: string): boolean;
  /** The token services (read per request: authentication is built on the catalog). */
  tokens(): TokenServices;
  /** The server issues service-account tokens: TokenRequest is served. */
  issuesTokens: boolean;
  /** Where Services' cluster IPs and node ports come from (--service-cluster-ip-range, --service-node-port-range). */
  serviceAllocation: ServiceAllocationWiring;
}

export interface WiredKinds {
  /** The kinds served as resources of their own. */
  definitions: ResourceDefinition[];
  /** The kinds served as a subresource of another (virtual.subresourceOf). */
  subresourceDefinitions: ResourceDefinition[];
}

export function wiredKinds(kinds: readonly BuiltinKind[], sources: KindSources): WiredKinds {
  const wired = wireKinds(kinds, {
    eventTTLSeconds: sources.eventTTLSeconds,
    builtInGroup: (group) => sources.builtInGroup(group),
    tokenReviewer: { review: (token, audiences) => sources.tokens().review(token, audiences) },
    ...(sources.issuesTokens && { tokenIssuer: { issue: (request) => sources.tokens().issue(request) } }),
    serviceAllocation: sources.serviceAllocation,
  });
  return {
    definitions: wired.filter((definition) => !definition.virtual?.subresourceOf),
    subresourceDefinitions: wired.filter((definition) => definition.virtual?.subresourceOf),
  };
}
