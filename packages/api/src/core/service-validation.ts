// upstream 1.28's ValidateService and ValidateServiceUpdate (pkg/apis/core/validation), for what
// applies without pods, with upstream's paths and messages. Metadata is the store's; the name rule
// (a DNS-1035 label) is the definition's validateName.
import {
  duplicate,
  forbidden,
  GoFormatted,
  goQuote,
  invalid,
  isDNS1123Subdomain,
  isQualifiedName,
  newPath,
  notSupported,
  required,
  validateLabels,
  type FieldError,
  type FieldPath,
} from '@plat/apimachinery';
import { isValidIP, isValidPortNum, parseIP, portProtocols, validateDNS1123Label, validateNonSpecialIP } from '../common/network-checks.js';
import { CLUSTER_IP_NONE, externallyAccessible, familyOf, goStrings, isHeadless, needsHealthCheck, type Service, type ServicePort } from './service-types.js';

const spec = newPath('spec');

/** Sorted as upstream's sets.List. */
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const SESSION_AFFINITIES = ['ClientIP', 'None'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';
const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
/** core.MaxClientIPServiceAffinitySeconds: a day. */
export const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
/** ports.KubeletPort: a load balancer may not expose it. */
const KUBELET_PORT = 10250;

/** upstream's IsValidPortName. */
export function portNameErrors(name: string): string[] {
  const errors: string[] = [];
  if (name.length > 15) errors.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errors.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  else if (!/[a-z]/.test(name)) errors.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errors.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errors.push('must not begin or end with a hyphen');
  return errors;
}

/** Go's %#v of a ServicePort keyed by protocol and port, as upstream's Duplicate of spec.ports[i] prints it. */
function portKey(protocol: string, port: number): GoFormatted {
  return new GoFormatted(
    `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  );
}

function validatePort(port: ServicePort, requireName: boolean, names: Set<string>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const name = port.name ?? '';
  if (requireName && !name) errors.push(required(path.child('name')));
  else if (name) {
    errors.push(...validateDNS1123Label(name, path.child('name')));
    if (names.has(name)) errors.push(duplicate(path.child('name'), name));
    else names.add(name);
  }
  const number = port.port ?? 0;
  errors.push(...isValidPortNum(number).map((m) => invalid(path.child('port'), number, m)));
  const protocol = port.protocol ?? '';
  if (!protocol) errors.push(required(path.child('protocol')));
  else if (!(portProtocols as readonly string[]).includes(protocol)) errors.push(notSupported(path.child('protocol'), protocol, portProtocols));
  // upstream's ValidatePortNumOrName; defaulting made it the port when unset.
  const target = port.targetPort ?? 0;
  if (typeof target === 'number') errors.push(...isValidPortNum(target).map((m) => invalid(path.child('targetPort'), target, m)));
  else errors.push(...portNameErrors(target).map((m) => invalid(path.child('targetPort'), target, m)));
  if (port.appProtocol !== undefined) errors.push(...isQualifiedName(port.appProtocol).map((m) => invalid(path.child('appProtocol'), port.appProtocol, m)));
  return errors;
}

/** upstream's ValidateServiceClusterIPsRelatedFields (also the allocator's pre-check). */
export function validateClusterIPsRelatedFields(service: Service): FieldError[] {
  const s = service.spec ?? {};
  if (s.type === 'ExternalName') return [];
  const errors: FieldError[] = [];
  const ipsPath = spec.child('clusterIPs');
  const ips = s.clusterIPs ?? [];
  if (s.clusterIP) {
    if (!ips.length) errors.push(required(ipsPath));
    else if (ips[0] !== s.clusterIP) errors.push(invalid(ipsPath, goStrings(s.clusterIPs), 'first value must match `clusterIP`'));
  } else if (ips.length) errors.push(invalid(ipsPath, goStrings(s.clusterIPs), 'must be empty when `clusterIP` is not specified'));
  const seen = new Set<string>();
  (s.ipFamilies ?? []).forEach((family, i) => {
    if (!IP_FAMILIES.includes(family)) errors.push(notSupported(spec.child('ipFamilies').index(i), family, IP_FAMILIES));
    if (seen.has(family)) errors.push(duplicate(spec.child('ipFamilies').index(i), family));
    seen.add(family);
  });
  if (s.ipFamilyPolicy !== undefined && !IP_FAMILY_POLICIES.includes(s.ipFamilyPolicy)) {
    errors.push(notSupported(spec.child('ipFamilyPolicy'), s.ipFamilyPolicy, IP_FAMILY_POLICIES));
  }
  let invalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === CLUSTER_IP_NONE) {
      if (ips.length > 1) {
        invalidIPs = true;
        errors.push(invalid(ipsPath, goStrings(ips), "'None' must be the first and only value"));
      }
      return;
    }
    const messages = isValidIP(ip);
    if (messages.length) invalidIPs = true;
    errors.push(...messages.map((m) => invalid(ipsPath.index(i), ip, m)));
  });
  if (ips.length > 2) errors.push(invalid(ipsPath, goStrings(ips), 'may only hold up to 2 values'));
  if (invalidIPs) return errors;
  if (ips.length > 1 && familyOf(ips[0]!) === familyOf(ips[1]!)) errors.push(invalid(ipsPath, goStrings(ips), 'may specify no more than one IP for each IP family'));
  const families = s.ipFamilies ?? [];
  if (!isHeadless(service)) {
    ips.forEach((ip, i) => {
      if (i >= families.length) return;
      if (families[i] === 'IPv4' && familyOf(ip) === 'IPv6') errors.push(invalid(ipsPath.index(i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && familyOf(ip) !== 'IPv6') errors.push(invalid(ipsPath.index(i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errors;
}

/** upstream's GetLoadBalancerSourceRanges accepts each as a CIDR (spaces trimmed). */
function isCIDR(text: string): boolean {
  const [address, bits, extra] = text.trim().split('/');
  if (extra !== undefined || bits === undefined || !/^[0-9]+$/.test(bits) || !address) return false;
  const ip = parseIP(address);
  return !!ip && Number(bits) <= (address.includes(':') ? 128 : 32) && !/(^|\.)0[0-9]/.test(address);
}

export function validateService(service: Service): FieldError[] {
  const s = service.spec ?? {};
  const errors: FieldError[] = [];
  const ports = s.ports ?? [];
  const type = s.type ?? '';
  errors.push(...validateTopologyAnnotations(service));
  if (!ports.length && !isHeadless(service) && type !== 'ExternalName') errors.push(required(spec.child('ports')));
  switch (type) {
    case 'LoadBalancer':
      ports.forEach((port, i) => {
        if (port.port === KUBELET_PORT) errors.push(invalid(spec.child('ports').index(i), port.port, `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`));
      });
      if (isHeadless(service)) errors.push(invalid(spec.child('clusterIPs').index(0), s.clusterIPs![0], "may not be set to 'None' for LoadBalancer services"));
      break;
    case 'NodePort':
      if (isHeadless(service)) errors.push(invalid(spec.child('clusterIPs').index(0), s.clusterIPs![0], "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if ((s.clusterIPs?.length ?? 0) > 0) errors.push(forbidden(spec.child('clusterIPs'), 'may not be set for ExternalName services'));
      if ((s.ipFamilies?.length ?? 0) > 0) errors.push(forbidden(spec.child('ipFamilies'), 'may not be set for ExternalName services'));
      if (s.ipFamilyPolicy !== undefined) errors.push(forbidden(spec.child('ipFamilyPolicy'), 'may not be set for ExternalName services'));
      // A CNAME may end with a dot: fully qualified.
      const cname = (s.externalName ?? '').replace(/\.$/, '');
      if (cname) errors.push(...isDNS1123Subdomain(cname).map((m) => invalid(spec.child('externalName'), cname, m)));
      else errors.push(required(spec.child('externalName')));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((port, i) => errors.push(...validatePort(port, ports.length > 1, names, spec.child('ports').index(i))));
  if (s.selector !== undefined) errors.push(...validateLabels(s.selector, spec.child('selector')));
  const affinity = s.sessionAffinity ?? '';
  if (!affinity) errors.push(required(spec.child('sessionAffinity')));
  else if (!SESSION_AFFINITIES.includes(affinity)) errors.push(notSupported(spec.child('sessionAffinity'), affinity, SESSION_AFFINITIES));
  if (affinity === 'ClientIP') errors.push(...validateClientIPAffinity(service));
  else if (affinity === 'None' && s.sessionAffinityConfig !== undefined) {
    errors.push(forbidden(spec.child('sessionAffinityConfig'), 'must not be set when session affinity is None'));
  }
  // dual stack: clusterIPs, ipFamilies and ipFamilyPolicy.
  errors.push(...validateClusterIPsRelatedFields(service));
  (s.externalIPs ?? []).forEach((ip, i) => {
    const path = spec.child('externalIPs').index(i);
    const messages = isValidIP(ip);
    if (messages.length) errors.push(...messages.map((m) => invalid(path, ip, m)));
    else errors.push(...validateNonSpecialIP(ip, path));
  });
  if (!type) errors.push(required(spec.child('type')));
  else if (!SERVICE_TYPES.includes(type)) errors.push(notSupported(spec.child('type'), type, SERVICE_TYPES));
  if (type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if (port.nodePort) errors.push(forbidden(spec.child('ports').index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  // Node ports and ports are unique by protocol.
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    if (!port.nodePort) return;
    const key = `${port.protocol ?? ''}/${port.nodePort}`;
    if (nodePorts.has(key)) errors.push(duplicate(spec.child('ports').index(i).child('nodePort'), port.nodePort));
    nodePorts.add(key);
  });
  const seenPorts = new Set<string>();
  ports.forEach((port, i) => {
    const key = `${port.protocol ?? ''}/${port.port ?? 0}`;
    if (seenPorts.has(key)) errors.push(duplicate(spec.child('ports').index(i), portKey(port.protocol ?? '', port.port ?? 0)));
    seenPorts.add(key);
  });
  // The field, else the older annotation; upstream's path names the field with a capital L.
  const ranges = s.loadBalancerSourceRanges ?? [];
  const annotation = service.metadata.annotations?.[SOURCE_RANGES_ANNOTATION];
  if (ranges.length || annotation !== undefined) {
    const path = ranges.length ? spec.child('LoadBalancerSourceRanges') : newPath('metadata', 'annotations').key(SOURCE_RANGES_ANNOTATION);
    const value = ranges.length ? `[${ranges.join(' ')}]` : annotation!;
    const entries = ranges.length ? ranges : annotation!.trim() ? annotation!.trim().split(',') : [];
    if (type !== 'LoadBalancer') errors.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    if (!entries.every(isCIDR)) errors.push(invalid(path, value, 'must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 '));
  }
  if (s.allocateLoadBalancerNodePorts !== undefined && type !== 'LoadBalancer') {
    errors.push(forbidden(spec.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"));
  }
  // Upstream's path has no `spec.` here.
  if (type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts === undefined) errors.push(required(newPath('allocateLoadBalancerNodePorts')));
  errors.push(...validateLoadBalancerClass(undefined, service));
  errors.push(...validateTrafficPolicies(service));
  return errors;
}

function validateClientIPAffinity(service: Service): FieldError[] {
  const path = spec.child('sessionAffinityConfig');
  const detail = 'when session affinity type is ClientIP';
  const config = service.spec?.sessionAffinityConfig;
  if (!config) return [required(path, detail)];
  if (!config.clientIP) return [required(path.child('clientIP'), detail)];
  const timeout = config.clientIP.timeoutSeconds;
  if (timeout === undefined) return [required(path.child('clientIP', 'timeoutSeconds'), detail)];
  if (timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS) {
    return [invalid(path.child('clientIP', 'timeoutSeconds'), timeout, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`)];
  }
  return [];
}

function validateTrafficPolicies(service: Service): FieldError[] {
  const s = service.spec ?? {};
  const errors: FieldError[] = [];
  const external = s.externalTrafficPolicy ?? '';
  if (!externallyAccessible(service)) {
    if (external) errors.push(invalid(spec.child('externalTrafficPolicy'), external, 'may only be set for externally-accessible services'));
  } else if (!external) errors.push(required(spec.child('externalTrafficPolicy')));
  else if (!TRAFFIC_POLICIES.includes(external)) errors.push(notSupported(spec.child('externalTrafficPolicy'), external, TRAFFIC_POLICIES));
  if (!needsHealthCheck(service)) {
    if (s.healthCheckNodePort) {
      errors.push(invalid(spec.child('healthCheckNodePort'), s.healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    }
  } else if (s.healthCheckNodePort) {
    // Upstream requires it here too: its allocator has filled it before validation; ours fills it after.
    errors.push(...isValidPortNum(s.healthCheckNodePort).map((m) => invalid(spec.child('healthCheckNodePort'), s.healthCheckNodePort, m)));
  }
  const internal = s.internalTrafficPolicy;
  // Not required of other types, for objects stored before it was checked (upstream's note).
  if (internal === undefined && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(s.type ?? '')) errors.push(required(spec.child('internalTrafficPolicy')));
  if (internal !== undefined && !TRAFFIC_POLICIES.includes(internal)) errors.push(notSupported(spec.child('internalTrafficPolicy'), internal, TRAFFIC_POLICIES));
  return errors;
}

function validateLoadBalancerClass(old: Service | undefined, service: Service): FieldError[] {
  const path = spec.child('loadBalancerClass');
  const value = service.spec?.loadBalancerClass;
  if (old) {
    // Set once on a LoadBalancer Service, it stays; it may be set when the type becomes LoadBalancer.
    const before = old.spec?.loadBalancerClass;
    if (old.spec?.type === 'LoadBalancer' && service.spec?.type === 'LoadBalancer' && before !== value) return [invalid(path, value ?? null, 'may not change once set')];
    return [];
  }
  if (value === undefined) return [];
  if (service.spec?.type !== 'LoadBalancer') return [forbidden(path, "may only be used when `type` is 'LoadBalancer'")];
  return isQualifiedName(value).map((m) => invalid(path, value, m));
}

/** upstream's validateUpgradeDowngradeClusterIPs: the primary cluster IP stays; the secondary goes only with SingleStack. */
function validateClusterIPsChange(old: Service, service: Service): FieldError[] {
  if (service.spec?.type === 'ExternalName' || old.spec?.type === 'ExternalName') return [];
  if (isHeadless(old) && isHeadless(service)) return [];
  const before = old.spec?.clusterIPs ?? [];
  const after = service.spec?.clusterIPs ?? [];
  const path = spec.child('clusterIPs');
  const errors: FieldError[] = [];
  if (before.length === after.length) {
    before.forEach((ip, i) => {
      if (ip !== after[i]) errors.push(invalid(path.index(i), goStrings(service.spec?.clusterIPs), 'may not change once set'));
    });
  } else if (before.length > after.length) {
    if (!after.length) errors.push(invalid(path.index(0), goStrings(service.spec?.clusterIPs), 'primary clusterIP can not be unset'));
    if (before.length && after.length && after[0] !== before[0]) errors.push(invalid(path.index(0), goStrings(after), 'may not change once set'));
    if (after.length === 1 && service.spec?.ipFamilyPolicy !== 'SingleStack') {
      errors.push(invalid(spec.child('ipFamilyPolicy'), policyValue(service), "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (before.length && after[0] !== before[0]) errors.push(invalid(path.index(0), goStrings(after), 'may not change once set'));
  return errors;
}

/** Go's %#v of a *IPFamilyPolicy as a field error prints it: the value, or null. */
const policyValue = (service: Service): GoFormatted | null =>
  service.spec?.ipFamilyPolicy === undefined ? null : new GoFormatted(goQuote(service.spec.ipFamilyPolicy));

/**
 * upstream's validateUpgradeDowngradeIPFamilies, its quirks included: "can not be unset" looks at
 * clusterIPs, and a changed primary family reports the clusterIPs as the value.
 */
function validateIPFamiliesChange(old: Service, service: Service): FieldError[] {
  if (service.spec?.type === 'ExternalName' || old.spec?.type === 'ExternalName') return [];
  // To or from headless, or headless still: the families may change.
  if (isHeadless(old) || isHeadless(service)) return [];
  const before = old.spec?.ipFamilies ?? [];
  const after = service.spec?.ipFamilies ?? [];
  const path = spec.child('ipFamilies');
  const families = new GoFormatted(service.spec?.ipFamilies === undefined ? '[]core.IPFamily(nil)' : `[]core.IPFamily{${after.map(goQuote).join(', ')}}`);
  const ips = goStrings(service.spec?.clusterIPs);
  const errors: FieldError[] = [];
  if (before.length === after.length) {
    before.forEach((family, i) => {
      if (family !== after[i]) errors.push(invalid(path.index(0), families, 'may not change once set'));
    });
  } else if (before.length > after.length) {
    if (!service.spec?.clusterIPs?.length) errors.push(invalid(path.index(0), families, 'primary ipFamily can not be unset'));
    if (after.length && after[0] !== before[0]) errors.push(invalid(path.index(0), ips, 'may not change once set'));
    if (after.length === 1 && service.spec?.ipFamilyPolicy !== 'SingleStack') {
      errors.push(invalid(spec.child('ipFamilyPolicy'), policyValue(service), "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (before.length && after.length && after[0] !== before[0]) errors.push(invalid(path.index(0), ips, 'may not change once set'));
  return errors;
}

/** upstream's validateServiceExternalTrafficFieldsUpdate: the health check node port stays while one is needed. */
function validateHealthCheckNodePortChange(old: Service, service: Service): FieldError[] {
  if (needsHealthCheck(old) && needsHealthCheck(service) && old.spec?.healthCheckNodePort !== service.spec?.healthCheckNodePort) {
    return [forbidden(spec.child('healthCheckNodePort'), 'field is immutable')];
  }
  return [];
}

/** upstream's topology annotations: the new one must agree with the deprecated one when both are set. */
function validateTopologyAnnotations(service: Service): FieldError[] {
  const annotations = service.metadata.annotations ?? {};
  const hints = annotations[TOPOLOGY_HINTS_ANNOTATION];
  const mode = annotations[TOPOLOGY_MODE_ANNOTATION];
  if (hints === undefined || mode === undefined || hints === mode) return [];
  return [invalid(newPath('metadata', 'annotations').key(TOPOLOGY_MODE_ANNOTATION), mode, `must match annotations[${TOPOLOGY_HINTS_ANNOTATION}] when both are specified`)];
}

export function validateServiceUpdate(service: Service, old: Service): FieldError[] {
  return [
    ...validateClusterIPsChange(old, service),
    ...validateIPFamiliesChange(old, service),
    ...validateLoadBalancerClass(old, service),
    ...validateHealthCheckNodePortChange(old, service),
    ...validateService(service),
  ];
}

/** upstream's ValidateServiceStatusUpdate: the load balancer's ingress addresses (and the conditions' shape, by the schema). */
export function validateServiceStatus(service: Service): FieldError[] {
  const errors: FieldError[] = [];
  (service.status?.loadBalancer?.ingress ?? []).forEach((ingress, i) => {
    const path = newPath('status', 'loadBalancer', 'ingress').index(i);
    if (ingress.ip && !parseIP(ingress.ip)) errors.push(invalid(path.child('ip'), ingress.ip, 'must be a valid IP address'));
    if (ingress.hostname) {
      errors.push(...isDNS1123Subdomain(ingress.hostname).map((m) => invalid(path.child('hostname'), ingress.hostname, m)));
      if (parseIP(ingress.hostname)) errors.push(invalid(path.child('hostname'), ingress.hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errors;
}
