// The Service's shape (core v1) and the small questions upstream's service code asks of it
// (pkg/api/service and pkg/registry/core/service's helpers): shared by its strategy, validation,
// columns and allocator.
import { GoFormatted, goQuote } from '@plat/apimachinery';
import type { KubeObject } from '@plat/registry';

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ClientIPConfig {
  timeoutSeconds?: number;
}

export interface SessionAffinityConfig {
  clientIP?: ClientIPConfig;
}

export interface ServiceSpec {
  ports?: ServicePort[];
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  type?: string;
  externalIPs?: string[];
  sessionAffinity?: string;
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  externalName?: string;
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  publishNotReadyAddresses?: boolean;
  sessionAffinityConfig?: SessionAffinityConfig;
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  allocateLoadBalancerNodePorts?: boolean;
  loadBalancerClass?: string;
  internalTrafficPolicy?: string;
}

export interface PortStatus {
  port?: number;
  protocol?: string;
  error?: string;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ports?: PortStatus[];
}

export interface ServiceStatus {
  loadBalancer?: { ingress?: LoadBalancerIngress[] };
  conditions?: Record<string, unknown>[];
}

export interface Service extends KubeObject {
  spec?: ServiceSpec;
  status?: ServiceStatus;
}

export const CLUSTER_IP_NONE = 'None';

/** Types that get a cluster IP (all but ExternalName). */
export const needsClusterIP = (service: Service): boolean => (service.spec?.type ?? '') !== 'ExternalName';

/** Types that get node ports. */
export const needsNodePort = (service: Service): boolean => service.spec?.type === 'NodePort' || service.spec?.type === 'LoadBalancer';

/** upstream's isHeadlessService: one cluster IP, and it is None. */
export const isHeadless = (service: Service): boolean => service.spec?.clusterIPs?.length === 1 && service.spec.clusterIPs[0] === CLUSTER_IP_NONE;

/** upstream's ExternallyAccessible: a node port or load balancer, or a ClusterIP Service with external IPs. */
export const externallyAccessible = (service: Service): boolean =>
  needsNodePort(service) || (service.spec?.type === 'ClusterIP' && (service.spec.externalIPs?.length ?? 0) > 0);

/** upstream's NeedsHealthCheck: a LoadBalancer Service whose external traffic stays on the node. */
export const needsHealthCheck = (service: Service): boolean => service.spec?.type === 'LoadBalancer' && service.spec.externalTrafficPolicy === 'Local';

/** Whether node ports are handed out for a NodePort or LoadBalancer Service (allocateLoadBalancerNodePorts false: only requested ones). */
export const shouldAllocateNodePorts = (service: Service): boolean =>
  service.spec?.type === 'NodePort' || (service.spec?.type === 'LoadBalancer' && service.spec.allocateLoadBalancerNodePorts !== false);

/** Go's %#v of a []string, as upstream's messages print spec.clusterIPs. */
export const goStrings = (values: readonly string[] | undefined): GoFormatted =>
  new GoFormatted(values === undefined ? '[]string(nil)' : `[]string{${values.map(goQuote).join(', ')}}`);

/** The address family of an IP as the API names it. */
export const familyOf = (ip: string): 'IPv4' | 'IPv6' => (ip.includes(':') ? 'IPv6' : 'IPv4');
