// Service (core v1, namespaced, `svc`): a named set of ports in front of backends. Upstream 1.28's
// defaults (SetDefaults_Service), strategy (status kept apart, cluster IPs normalized, the fields of
// a type dropped when it changes) and validation (service-validation.ts); the selector is allowed
// and inert (no pods here). Cluster IPs and node ports are the allocator's, which the server gives
// the factory (service-allocator.ts); kubectl's columns; status subresource; Protobuf.
import { isDNS1035Label, type FieldError } from '@plat/apimachinery';
import type { JSONSchema, ResourceAllocator, ResourceDefinition, SubresourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicList, atomicStringList, booleanField, integerField, objectSchema, stringField, stringMap } from '../common/schema.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';
import { externallyAccessible, needsClusterIP, needsHealthCheck, needsNodePort, type Service } from './service-types.js';
import { validateService, validateServiceStatus, validateServiceUpdate } from './service-validation.js';

export type { Service } from './service-types.js';

const intOrString = (description: string): JSONSchema => ({ description, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });

const portSchema = objectSchema(
  'A port a Service exposes.',
  {
    name: stringField('The name of this port within the service: a DNS label, unique among the ports; required when there is more than one.'),
    // The default is in the schema too, as upstream's OpenAPI has it: server-side apply keys the
    // ports by port and protocol, and a manifest that leaves the protocol out means TCP.
    protocol: { ...stringField('The IP protocol for this port: TCP, UDP, or SCTP. Default is TCP.'), default: 'TCP' },
    appProtocol: stringField('The application protocol for this port, as a label key.'),
    port: integerField('The port that will be exposed by this service.'),
    targetPort: intOrString('Number or name of the port to access on the backends; defaults to the port.'),
    nodePort: integerField('The port on each node on which this service is exposed when type is NodePort or LoadBalancer; allocated when unset.'),
  },
  { required: ['port'] },
);

const conditionSchema = objectSchema(
  'A condition of the Service.',
  {
    type: stringField('Type of condition in CamelCase.'),
    status: stringField('Status of the condition: True, False or Unknown.'),
    observedGeneration: integerField('The .metadata.generation the condition was set upon.', 'int64'),
    lastTransitionTime: { type: 'string', format: 'date-time', description: 'When the condition last changed status.' },
    reason: stringField('A programmatic identifier of the last transition, in CamelCase.'),
    message: stringField('A human readable message about the transition.'),
  },
  { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
);

const serviceSchema = kindSchema('A named abstraction of software service, the port it listens on and the backends that implement it.', {
  spec: objectSchema('The behavior of the service.', {
    ports: {
      type: 'array',
      description: 'The ports exposed by this service.',
      items: portSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'port',
    },
    selector: { ...stringMap('Routes service traffic to pods with label keys and values matching this selector (inert here: there are no pods).'), 'x-kubernetes-map-type': 'atomic' },
    clusterIP: stringField('The IP address of the service, usually assigned randomly; None for a headless service.'),
    clusterIPs: atomicStringList('The IP addresses assigned to this service, one per family; the first is clusterIP.'),
    type: stringField('How the Service is exposed: ExternalName, ClusterIP (default), NodePort, LoadBalancer.'),
    externalIPs: atomicStringList('IP addresses for which nodes also accept traffic for this service.'),
    sessionAffinity: stringField('ClientIP or None (default).'),
    loadBalancerIP: stringField('Deprecated: the load balancer IP asked for.'),
    loadBalancerSourceRanges: atomicStringList('Client IP ranges a cloud load balancer is restricted to.'),
    externalName: stringField('The external reference (a DNS name) discovery returns as a CNAME record, for type ExternalName.'),
    externalTrafficPolicy: stringField('How external traffic is routed: Cluster or Local.'),
    healthCheckNodePort: integerField('The health check node port of a LoadBalancer Service with externalTrafficPolicy Local.'),
    publishNotReadyAddresses: booleanField('Whether DNS publishes addresses of endpoints that are not ready.'),
    sessionAffinityConfig: objectSchema('The configurations of session affinity.', {
      clientIP: objectSchema('The configurations of ClientIP based session affinity.', {
        timeoutSeconds: integerField('Seconds of ClientIP session stickiness: 0 < value <= 86400; default 10800.'),
      }),
    }),
    ipFamilies: atomicStringList('The IP families (IPv4, IPv6) assigned to this service.'),
    ipFamilyPolicy: stringField('SingleStack, PreferDualStack or RequireDualStack.'),
    allocateLoadBalancerNodePorts: booleanField('Whether node ports are allocated for a LoadBalancer Service. Default true.'),
    loadBalancerClass: stringField('The class of the load balancer implementation.'),
    internalTrafficPolicy: stringField('How cluster-internal traffic is routed: Cluster or Local.'),
  }),
  status: objectSchema('The current status of the service.', {
    loadBalancer: objectSchema('The status of the load balancer, if one is present.', {
      ingress: atomicList(
        'Ingress points of the load balancer.',
        objectSchema('An ingress point of the load balancer.', {
          ip: stringField('IP of a load balancer ingress point.'),
          hostname: stringField('Hostname of a DNS based load balancer ingress point.'),
          ports: atomicList(
            'Records of the service ports.',
            objectSchema('The status of a service port.', { port: integerField('The port number.'), protocol: stringField('The protocol.'), error: stringField('The problem with the port.') }, { required: ['port', 'protocol'] }),
          ),
        }),
      ),
    }),
    conditions: {
      type: 'array',
      description: 'The current conditions of the service.',
      items: conditionSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    },
  }),
});

/** upstream's SetDefaults_Service and SetDefaults_ServicePort (idempotent). */
export function defaultService(service: Service): void {
  const spec = (service.spec ??= {});
  spec.sessionAffinity ||= 'None';
  if (spec.sessionAffinity === 'ClientIP') {
    spec.sessionAffinityConfig ??= {};
    spec.sessionAffinityConfig.clientIP ??= {};
    spec.sessionAffinityConfig.clientIP.timeoutSeconds ??= 10800;
  }
  spec.type ||= 'ClusterIP';
  for (const port of spec.ports ?? []) {
    port.protocol ||= 'TCP';
    // An unset (or zero) target port is the port.
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port ?? 0;
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') spec.externalTrafficPolicy ||= 'Cluster';
  if (spec.type !== 'ExternalName') spec.internalTrafficPolicy ??= 'Cluster';
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
  // A ClusterIP Service with external IPs is reached from outside too.
  if (spec.type === 'ClusterIP' && (spec.externalIPs?.length ?? 0) > 0) spec.externalTrafficPolicy ||= 'Cluster';
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** upstream's normalizeClusterIPs: clusterIP and clusterIPs kept in step for clients that set one. */
export function normalizeClusterIPs(service: Service, old: Service | undefined): void {
  const spec = (service.spec ??= {});
  if (!old) {
    if (spec.clusterIP && !spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
    return;
  }
  const before = old.spec ?? {};
  if ((before.clusterIPs?.length ?? 0) > 0 && !spec.clusterIPs?.length && (before.clusterIP ?? '') === (spec.clusterIP ?? '')) spec.clusterIPs = before.clusterIPs;
  if ((before.clusterIP ?? '') !== (spec.clusterIP ?? '')) {
    if (before.clusterIP && !spec.clusterIP) {
      if (same(before.clusterIPs, spec.clusterIPs)) delete spec.clusterIPs;
    } else if (same(before.clusterIPs, spec.clusterIPs)) spec.clusterIPs = [spec.clusterIP!];
  }
}

/**
 * upstream's patchAllocatedValues: an update that leaves out what was allocated (kubectl apply of a
 * manifest without clusterIP or nodePort) keeps it.
 */
function keepAllocated(service: Service, old: Service): void {
  const spec = service.spec!;
  const before = old.spec ?? {};
  if (needsClusterIP(old) && needsClusterIP(service)) {
    if (!spec.clusterIP) spec.clusterIP = before.clusterIP ?? '';
    if (!spec.clusterIPs?.length && before.clusterIPs?.length) spec.clusterIPs = before.clusterIPs;
    if (!spec.clusterIP) delete spec.clusterIP;
  }
  if (needsNodePort(old) && needsNodePort(service)) {
    const used = new Map((before.ports ?? []).filter((p) => p.nodePort).map((p) => [`${p.protocol}/${p.port}`, p.nodePort!]));
    for (const port of spec.ports ?? []) if (!port.nodePort && used.has(`${port.protocol}/${port.port}`)) port.nodePort = used.get(`${port.protocol}/${port.port}`)!;
  }
  if (needsHealthCheck(old) && needsHealthCheck(service) && !spec.healthCheckNodePort && before.healthCheckNodePort) spec.healthCheckNodePort = before.healthCheckNodePort;
}

/** upstream's dropTypeDependentFields: what the old type had and the new one cannot, unchanged by the client, dropped. */
function dropTypeDependentFields(service: Service, old: Service): void {
  const spec = service.spec!;
  const before = old.spec ?? {};
  if ((spec.type ?? '') === (before.type ?? '')) return;
  if (needsClusterIP(old) && !needsClusterIP(service)) {
    if ((spec.clusterIP ?? '') === (before.clusterIP ?? '') && same(spec.clusterIPs, before.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (same(spec.ipFamilies, before.ipFamilies)) delete spec.ipFamilies;
    if (spec.ipFamilyPolicy === before.ipFamilyPolicy) delete spec.ipFamilyPolicy;
  }
  if (needsNodePort(old) && !needsNodePort(service) && same(spec.ports?.map((p) => p.nodePort), before.ports?.map((p) => p.nodePort))) {
    for (const port of spec.ports ?? []) delete port.nodePort;
  }
  if (needsHealthCheck(old) && !needsHealthCheck(service) && spec.healthCheckNodePort === before.healthCheckNodePort) delete spec.healthCheckNodePort;
  if (!externallyAccessible(service) && spec.externalTrafficPolicy === before.externalTrafficPolicy) delete spec.externalTrafficPolicy;
  if (before.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts === before.allocateLoadBalancerNodePorts) delete spec.allocateLoadBalancerNodePorts;
    if (spec.loadBalancerClass === before.loadBalancerClass) delete spec.loadBalancerClass;
  }
  if (spec.type === 'ExternalName' && spec.internalTrafficPolicy === before.internalTrafficPolicy) delete spec.internalTrafficPolicy;
}

const statusSubresource: SubresourceDefinition<Service> = {
  merge: (object, old) => {
    const merged = { ...old, metadata: object.metadata };
    if (object.status) merged.status = object.status;
    else delete merged.status;
    return merged;
  },
  validateUpdate: (service) => validateServiceStatus(service),
};

// ---- kubectl's cells (printers.go printService) ----

function externalIPsCell(service: Service): string {
  const s = service.spec ?? {};
  switch (s.type) {
    case 'ClusterIP':
      return s.externalIPs?.length ? s.externalIPs.join(',') : '<none>';
    case 'NodePort':
      return s.externalIPs?.length ? s.externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      // loadBalancerStatusStringer: a sorted set; the server prints wide, so nothing is cut short.
      const addresses = [...new Set((service.status?.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || '').filter(Boolean))].sort();
      const all = [...addresses, ...(s.externalIPs ?? [])];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return s.externalName ?? '';
    default:
      return '<unknown>';
  }
}

function portsCell(service: Service): string {
  const ports = service.spec?.ports ?? [];
  if (!ports.length) return '<none>';
  return ports.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol}` : `${p.port}/${p.protocol}`)).join(',');
}

function selectorCell(service: Service): string {
  const selector = service.spec?.selector ?? {};
  const keys = Object.keys(selector).sort();
  return keys.length ? keys.map((k) => `${k}=${selector[k]}`).join(',') : '<none>';
}

// kubectl shows the first of clusterIPs ("None" for a headless Service).
const clusterIPCell = (service: Service): string => service.spec?.clusterIPs?.[0] ?? '<none>';

export interface ServiceDefinitionOptions {
  /** The cluster IPs and node ports (absent: nothing is allocated, as for describing the kind). */
  allocator?: ResourceAllocator<Service>;
}

const nameErrors = (name: string): string[] => isDNS1035Label(name);

export function serviceDefinition(options: ServiceDefinitionOptions = {}): ResourceDefinition<Service> {
  return {
    group: '',
    version: 'v1',
    kind: 'Service',
    resource: 'services',
    singularName: 'service',
    shortNames: ['svc'],
    categories: ['all'],
    namespaced: true,
    verbs: allVerbs,
    schema: serviceSchema,
    zeroValue: { spec: {}, status: {} },
    // upstream's ValidateServiceName: a DNS-1035 label (a prefix as a prefix: a trailing dash allowed).
    validateName: (name, prefix) => nameErrors(prefix ? `${name}a` : name),
    strategy: {
      prepareForCreate(service) {
        // A client sets no status; Go writes the load balancer's, a struct, always.
        service.status = { loadBalancer: {} };
        normalizeClusterIPs(service, undefined);
      },
      prepareForUpdate(service, old) {
        if (old.status) service.status = old.status;
        else delete service.status;
        service.spec ??= {};
        keepAllocated(service, old);
        normalizeClusterIPs(service, old);
        dropTypeDependentFields(service, old);
      },
      default: defaultService,
      validate: (service): FieldError[] => validateService(service),
      validateUpdate: (service, old): FieldError[] => validateServiceUpdate(service, old),
    },
    subresources: { status: statusSubresource },
    // Upstream proxies to the Service's endpoints; this control plane has no network path to them.
    notImplementedSubresources: {
      proxy: { kind: 'ServiceProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'], reason: 'this control plane has no network path to Service backends' },
    },
    tableColumns: [
      nameColumn<Service>(),
      { name: 'Type', type: 'string', description: 'How the Service is exposed.', priority: 0, value: (s) => s.spec?.type ?? '' },
      { name: 'Cluster-IP', type: 'string', description: 'The IP address of the service.', priority: 0, value: clusterIPCell },
      { name: 'External-IP', type: 'string', description: 'The external addresses of the service.', priority: 0, value: externalIPsCell },
      { name: 'Port(s)', type: 'string', description: 'The ports exposed by the service.', priority: 0, value: portsCell },
      ageColumn<Service>(),
      { name: 'Selector', type: 'string', description: 'The selector of the service.', priority: 1, value: selectorCell },
    ],
    allowCreateOnUpdate: false,
    ...(options.allocator && { allocator: options.allocator }),
    protobuf: {
      message: 'k8s.io.api.core.v1.Service',
      // Pointers upstream: ServiceSpec's ipFamilyPolicy, allocateLoadBalancerNodePorts, loadBalancerClass,
      // internalTrafficPolicy; ServicePort.appProtocol; ClientIPConfig.timeoutSeconds; PortStatus.error.
      pointers: [
        'spec.ipFamilyPolicy',
        'spec.allocateLoadBalancerNodePorts',
        'spec.loadBalancerClass',
        'spec.internalTrafficPolicy',
        'spec.ports.appProtocol',
        'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
        'status.loadBalancer.ingress.ports.error',
      ],
    },
  };
}
