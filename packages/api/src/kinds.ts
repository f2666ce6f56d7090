// The built-in kinds: one line each. The server registers them (wiring each factory with what it
// needs), and the schema and codec tests go through the same list, each kind with the sample and
// Protobuf fixture of its folder's *-examples.test-support.ts. A new kind is its file(s) and one line here.
import { newGenericServerResponse } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { leaseDefinition } from './coordination/lease.js';
import { limitRangeDefinition } from './core/limit-range.js';
import { eventDefinition } from './core/event.js';
import { eventsAPIEventDefinition } from './events/event.js';
import { namespaceDefinition } from './core/namespace.js';
import { nodeDefinition } from './core/node.js';
import { serviceAccountDefinition } from './core/service-account.js';
import { configMapDefinition } from './core/config-map.js';
import { endpointsDefinition } from './core/endpoints.js';
import { serviceDefinition } from './core/service.js';
import { ServiceAllocator } from './core/service-allocator.js';
import { ClusterIPAllocator, type IPAddressObjects } from './core/cluster-ip-allocator.js';
import { NodePortAllocator, type PortRange, type PortRecord } from './core/node-port-allocator.js';
import type { ServiceCIDR } from './core/service-ip-range.js';
import { endpointSliceDefinition } from './discovery/endpoint-slice.js';
import { secretDefinition } from './core/secret.js';
import { ipAddressDefinition } from './networking/ip-address.js';
import { clusterRoleBindingDefinition } from './rbac/cluster-role-binding.js';
import { clusterRoleDefinition } from './rbac/cluster-role.js';
import { roleBindingDefinition } from './rbac/role-binding.js';
import { roleDefinition } from './rbac/role.js';
import { localSubjectAccessReviewDefinition } from './authorization/local-subject-access-review.js';
import { selfSubjectAccessReviewDefinition } from './authorization/self-subject-access-review.js';
import { selfSubjectRulesReviewDefinition } from './authorization/self-subject-rules-review.js';
import { subjectAccessReviewDefinition } from './authorization/subject-access-review.js';
import { selfSubjectReviewDefinition } from './authentication/self-subject-review.js';
import { tokenRequestDefinition, type TokenIssuer } from './authentication/token-request.js';
import { tokenReviewDefinition, type TokenReviewer } from './authentication/token-review.js';
import { customResourceDefinitionDefinition } from './apiextensions/custom-resource-definition.js';
import { validatingAdmissionPolicyDefinition } from './admissionregistration/validating-admission-policy.js';
import { validatingAdmissionPolicyBindingDefinition } from './admissionregistration/validating-admission-policy-binding.js';
import { flowSchemaDefinition } from './flowcontrol/flow-schema.js';
import { priorityLevelConfigurationDefinition } from './flowcontrol/priority-level-configuration.js';

/**
 * What the server gives the kinds whose factories take something, at wiring: settings from its
 * flags and the services a never-stored kind answers with. The generic store knows none of it.
 */
export interface KindWiring {
  /** --event-ttl in whole seconds: how long an Event lives after its last write (0: until deleted). */
  eventTTLSeconds: number;
  /** Whether the server's built-in kinds have this API group (resolved: `rbac.authorization.plat.io`). */
  builtInGroup(group: string): boolean;
  /** The server's token authenticators (TokenReview). */
  tokenReviewer: TokenReviewer;
  /** The service-account token issuer (TokenRequest); absent: the server issues none, and serves no serviceaccounts/token. */
  tokenIssuer?: TokenIssuer;
  /** Where Services get their cluster IPs and node ports; absent: nothing is allocated (the kinds described). */
  serviceAllocation?: ServiceAllocationWiring;
}

/** --service-cluster-ip-range and --service-node-port-range, and where their reservations are kept. */
export interface ServiceAllocationWiring {
  clusterIPRanges: readonly ServiceCIDR[];
  nodePortRange: PortRange;
  /** The IPAddress objects (the IPAddress kind's store). */
  ipAddresses: IPAddressObjects;
  /** The one record of used node ports. */
  nodePorts: PortRecord;
}

/** A kind: its definition, or its factory given the server's wiring (undefined: not served by this server). */
export type BuiltinKind = ResourceDefinition | ((wiring: KindWiring) => ResourceDefinition | undefined);

// A definition of a particular kind is a definition of some kind: the store sees only KubeObjects.
type Typed<T extends KubeObject> = ResourceDefinition<T> | ((wiring: KindWiring) => ResourceDefinition<T> | undefined);
const kind = <T extends KubeObject>(entry: Typed<T>): BuiltinKind => entry as unknown as BuiltinKind;

/** Every built-in kind, in the order discovery lists them; a subresource's kind (virtual.subresourceOf) among them. */
export const builtinKinds: readonly BuiltinKind[] = [
  kind(namespaceDefinition),
  kind(nodeDefinition),
  kind(serviceAccountDefinition),
  kind(configMapDefinition),
  kind(secretDefinition),
  kind(endpointsDefinition),
  kind(({ serviceAllocation: a }) =>
    serviceDefinition(
      a ? { allocator: new ServiceAllocator(a.clusterIPRanges.map((cidr) => new ClusterIPAllocator(cidr, a.ipAddresses)), new NodePortAllocator(a.nodePortRange, a.nodePorts)) } : {},
    ),
  ),
  kind(limitRangeDefinition),
  kind(({ eventTTLSeconds }) => eventDefinition({ ttlSeconds: eventTTLSeconds })),
  kind(({ eventTTLSeconds }) => eventsAPIEventDefinition({ ttlSeconds: eventTTLSeconds })),
  kind(ipAddressDefinition),
  kind(leaseDefinition),
  kind(endpointSliceDefinition),
  kind(roleDefinition),
  kind(clusterRoleDefinition),
  kind(roleBindingDefinition),
  kind(clusterRoleBindingDefinition),
  kind(subjectAccessReviewDefinition),
  kind(localSubjectAccessReviewDefinition),
  kind(selfSubjectAccessReviewDefinition),
  kind(selfSubjectRulesReviewDefinition),
  kind(({ tokenReviewer }) => tokenReviewDefinition(tokenReviewer)),
  kind(selfSubjectReviewDefinition),
  kind(({ builtInGroup }) => customResourceDefinitionDefinition({ builtInGroup })),
  kind(validatingAdmissionPolicyDefinition('v1beta1')),
  kind(validatingAdmissionPolicyBindingDefinition('v1beta1')),
  kind(validatingAdmissionPolicyDefinition('v1alpha1')),
  kind(validatingAdmissionPolicyBindingDefinition('v1alpha1')),
  kind(flowSchemaDefinition('v1beta3')),
  kind(priorityLevelConfigurationDefinition('v1beta3')),
  kind(flowSchemaDefinition('v1beta2')),
  kind(priorityLevelConfigurationDefinition('v1beta2')),
  kind(({ tokenIssuer }) => tokenIssuer && tokenRequestDefinition(tokenIssuer)),
];

/** The definitions of `kinds`, each factory given `wiring`; the kinds it serves not left out. */
export function wireKinds(kinds: readonly BuiltinKind[], wiring: KindWiring): ResourceDefinition[] {
  return kinds.flatMap((entry) => {
    const definition = typeof entry === 'function' ? entry(wiring) : entry;
    return definition ? [definition] : [];
  });
}

const notServed = async (): Promise<never> => {
  throw newGenericServerResponse(404);
};

/**
 * The kinds as they describe themselves (schemas, columns, Protobuf forms), for documents and tests:
 * Events without a time to live, no group told built-in, and token reviews and requests answered
 * 404, as a server without those services answers. A server wires its own (wireKinds).
 */
const described = wireKinds(builtinKinds, {
  eventTTLSeconds: 0,
  builtInGroup: () => false,
  tokenReviewer: { review: notServed },
  tokenIssuer: { issue: notServed },
});

/** The described kinds served as resources of their own. */
export const builtinDefinitions: readonly ResourceDefinition[] = described.filter((definition) => !definition.virtual?.subresourceOf);

/** The described kinds served as a subresource of another kind (virtual.subresourceOf says where): serviceaccounts/token. */
export const builtinSubresourceDefinitions: readonly ResourceDefinition[] = described.filter((definition) => definition.virtual?.subresourceOf);
