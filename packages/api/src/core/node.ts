// Node (core v1, cluster-scoped): a machine that runs pods, registered and kept current by its node
// agent. Its status is the agent's report (capacity, conditions, heartbeats); anyone may set status
// on create, after that only through nodes/status. Rules as upstream 1.28's node strategy and
// ValidateNode / ValidateNodeUpdate.
import { isIP } from 'node:net';
import {
  duplicate,
  forbidden,
  GoFormatted,
  goQuote,
  goStringSlice,
  invalid,
  isQualifiedName,
  isValidLabelValue,
  newPath,
  notSupported,
  parseQuantity,
  required,
  type FieldError,
  type FieldPath,
} from '@plat/apimachinery';
import type { JSONSchema, KubeObject, ResourceDefinition, SubresourceDefinition } from '@plat/registry';
import { wellKnownPrefix } from '../common/domain.js';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicList, atomicStringList, booleanField, integerField, objectSchema, resourceList, stringField, timeField } from '../common/schema.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect | string;
  timeAdded?: string;
}

export interface ConfigMapNodeConfigSource {
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  kubeletConfigKey?: string;
}

export interface NodeConfigSource {
  configMap?: ConfigMapNodeConfigSource;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
  configSource?: NodeConfigSource;
  externalID?: string;
}

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface NodeAddress {
  type: string;
  address: string;
}

export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

export interface NodeStatus {
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  phase?: string;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  daemonEndpoints?: { kubeletEndpoint?: { Port: number } };
  nodeInfo?: NodeSystemInfo;
  images?: { names?: string[]; sizeBytes?: number }[];
  volumesInUse?: string[];
  volumesAttached?: { name: string; devicePath: string }[];
  config?: { assigned?: NodeConfigSource; active?: NodeConfigSource; lastKnownGood?: NodeConfigSource; error?: string };
}

export interface Node extends KubeObject {
  spec?: NodeSpec;
  status?: NodeStatus;
}

const taintSchema: JSONSchema = objectSchema(
  'A taint: the node repels every pod that does not tolerate it.',
  {
    key: stringField('The taint key to be applied to a node.'),
    value: stringField('The taint value corresponding to the taint key.'),
    effect: stringField('The effect of the taint on pods that do not tolerate it: NoSchedule, PreferNoSchedule or NoExecute.'),
    timeAdded: timeField('When the taint was added. Only written for NoExecute taints.'),
  },
  { required: ['key', 'effect'] },
);

const configMapSourceSchema: JSONSchema = objectSchema(
  'A ConfigMap as a config source for the node (deprecated: no agent reads it).',
  {
    namespace: stringField('Namespace of the referenced ConfigMap.'),
    name: stringField('Name of the referenced ConfigMap.'),
    uid: stringField('UID of the referenced ConfigMap; forbidden in spec, required in status.'),
    resourceVersion: stringField('ResourceVersion of the referenced ConfigMap; forbidden in spec, required in status.'),
    kubeletConfigKey: stringField('The key of the referenced ConfigMap that holds the configuration.'),
  },
  { required: ['namespace', 'name', 'kubeletConfigKey'] },
);

const configSourceSchema: JSONSchema = objectSchema('A source of node configuration (deprecated).', { configMap: configMapSourceSchema });

const conditionSchema: JSONSchema = objectSchema(
  "One aspect of the node's state, as its agent last reported it.",
  {
    type: stringField('Type of node condition.'),
    status: stringField('Status of the condition: True, False or Unknown.'),
    lastHeartbeatTime: timeField('Last time we got an update on a given condition.'),
    lastTransitionTime: timeField('Last time the condition transitioned from one status to another.'),
    reason: stringField("(brief) reason for the condition's last transition."),
    message: stringField('Human readable message indicating details about last transition.'),
  },
  { required: ['type', 'status'] },
);

const systemInfoFields = [
  'machineID',
  'systemUUID',
  'bootID',
  'kernelVersion',
  'osImage',
  'containerRuntimeVersion',
  'kubeletVersion',
  'kubeProxyVersion',
  'operatingSystem',
  'architecture',
] as const;

const nodeSchema = kindSchema('A worker node: a machine that runs pods, kept current by its node agent.', {
  spec: objectSchema('How the node behaves: its pod CIDRs, taints and whether it takes new pods.', {
    podCIDR: stringField('The pod IP range assigned to the node.'),
    podCIDRs: {
      ...atomicStringList('The IP ranges assigned to the node for its pods; at most one for each IP family.'),
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    },
    providerID: stringField('ID of the node assigned by the cloud provider: <ProviderName>://<ProviderSpecificNodeID>.'),
    unschedulable: booleanField('Unschedulable controls node schedulability of new pods. By default, node is schedulable.'),
    taints: atomicList("If specified, the node's taints.", taintSchema),
    configSource: configSourceSchema,
    externalID: stringField('Deprecated. Not all kubelets will set this field.'),
  }),
  status: objectSchema('The most recently observed status of the node, as its agent reports it.', {
    capacity: resourceList('The total resources of the node.'),
    allocatable: resourceList('The resources of the node available for scheduling. Defaults to Capacity.'),
    phase: stringField('NodePhase is the recently observed lifecycle phase of the node (deprecated).'),
    conditions: {
      type: 'array',
      description: 'Conditions is an array of current observed node conditions.',
      items: conditionSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
    },
    addresses: {
      type: 'array',
      description: 'List of addresses reachable to the node.',
      items: objectSchema(
        "One of the node's addresses.",
        { type: stringField('Node address type: Hostname, ExternalIP or InternalIP.'), address: stringField('The node address.') },
        { required: ['type', 'address'] },
      ),
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
    },
    daemonEndpoints: objectSchema('Endpoints of daemons running on the node.', {
      kubeletEndpoint: objectSchema('Endpoint on which the node agent is listening.', { Port: integerField('Port number of the given endpoint.') }, { required: ['Port'] }),
    }),
    nodeInfo: objectSchema(
      'General information about the node: its kernel, runtime and agent versions, its operating system.',
      Object.fromEntries(systemInfoFields.map((name) => [name, stringField(`The node's ${name}.`)])),
      { required: systemInfoFields },
    ),
    images: atomicList(
      'List of container images on this node.',
      objectSchema('A container image.', {
        names: atomicStringList('Names by which this image is known.'),
        sizeBytes: integerField('The size of the image in bytes.', 'int64'),
      }),
    ),
    volumesInUse: atomicStringList('List of attachable volumes in use (mounted) by the node.'),
    volumesAttached: atomicList(
      'List of volumes that are attached to the node.',
      objectSchema(
        'A volume attached to the node.',
        { name: stringField('Name of the attached volume.'), devicePath: stringField('DevicePath represents the device path where the volume should be available.') },
        { required: ['name', 'devicePath'] },
      ),
    ),
    config: objectSchema('Status of the config assigned to the node via the dynamic Kubelet config feature (deprecated).', {
      assigned: configSourceSchema,
      active: configSourceSchema,
      lastKnownGood: configSourceSchema,
      error: stringField('Error describes any problems reconciling the Spec.ConfigSource to the Active config.'),
    }),
  }),
});

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Go's %#v of a core.Taint, as upstream's duplicate-taint error prints it. */
const goTaint = (taint: Taint): GoFormatted =>
  new GoFormatted(
    `core.Taint{Key:${goQuote(taint.key ?? '')}, Value:${goQuote(taint.value ?? '')}, Effect:${goQuote(taint.effect ?? '')}, TimeAdded:${taint.timeAdded ? '<time>' : '(*v1.Time)(nil)'}}`,
  );

function validateTaints(taints: readonly Taint[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((taint, i) => {
    const at = path.index(i);
    const key = taint.key ?? '';
    errors.push(...isQualifiedName(key).map((message) => invalid(at.child('key'), key, message)));
    const valueErrors = isValidLabelValue(taint.value ?? '');
    if (valueErrors.length) errors.push(invalid(at.child('value'), taint.value ?? '', valueErrors.join(';')));
    const effect = taint.effect ?? '';
    if (effect === '') errors.push(required(at.child('effect')));
    else if (!taintEffects.includes(effect)) errors.push(notSupported(at.child('effect'), effect, taintEffects));
    // A taint is identified by its key and effect.
    const identity = `${effect}\u0000${key}`;
    if (seen.has(identity)) {
      errors.push(Object.assign(duplicate(at, goTaint(taint)), { detail: 'taints must be unique by key and effect pair' }));
      return;
    }
    seen.add(identity);
  });
  return errors;
}

/** The alpha annotation that once carried taints: still checked where it is set, as upstream does. */
const taintsAnnotation = (domain: string): string => `scheduler.alpha.${wellKnownPrefix(domain)}/taints`;

function validateNodeAnnotations(node: Node, domain: string): FieldError[] {
  const key = taintsAnnotation(domain);
  const text = node.metadata.annotations?.[key];
  if (!text) return [];
  const path = newPath('metadata', 'annotations');
  let taints: unknown;
  try {
    taints = JSON.parse(text);
  } catch (error) {
    return [invalid(path, key, (error as Error).message)];
  }
  if (!Array.isArray(taints)) return [invalid(path, key, 'must be a JSON list of taints')];
  return validateTaints(taints as Taint[], path.child(key));
}

// Upstream's helper.IsIntegerResourceName: counted resources and extended resources take whole numbers only.
const integerResources = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);
const isExtendedResource = (name: string, domain: string): boolean =>
  name.includes('/') && !name.includes(`${wellKnownPrefix(domain)}/`) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;

function validateResources(node: Node, domain: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const part of ['capacity', 'allocatable'] as const) {
    for (const [name, value] of Object.entries(node.status?.[part] ?? {})) {
      const path = newPath('status', part, name);
      let quantity;
      try {
        quantity = parseQuantity(String(value));
      } catch {
        // The schema check refuses quantities that do not parse before validation runs.
        continue;
      }
      if (quantity.sign() < 0) errors.push(invalid(path, quantity.toString(), 'must be greater than or equal to 0'));
      if ((integerResources.has(name) || isExtendedResource(name, domain)) && !Number.isInteger(quantity.ratioTo(parseQuantity('1')))) {
        errors.push(invalid(path, new GoFormatted(quantity.toString()), 'must be an integer'));
      }
    }
  }
  return errors;
}

/** The IP family of a CIDR, as Go's net.ParseCIDR reads it; undefined when it is no CIDR. */
function cidrFamily(text: string): 4 | 6 | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const family = isIP(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return undefined;
  return family === 4 ? 4 : 6;
}

function validatePodCIDRs(cidrs: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  const path = newPath('spec', 'podCIDRs');
  const families = cidrs.map(cidrFamily);
  families.forEach((family, i) => {
    if (family === undefined) errors.push(invalid(path.index(i), new GoFormatted(goStringSlice(cidrs)), 'must be valid CIDR'));
  });
  if (cidrs.length > 1) {
    const dualStack = families.includes(4) && families.includes(6);
    if (!dualStack || cidrs.length > 2) {
      errors.push(invalid(path, new GoFormatted(goStringSlice(cidrs)), 'may specify no more than one CIDR for each IP family'));
    }
    const seen = new Set<string>();
    cidrs.forEach((cidr, i) => {
      if (seen.has(cidr)) errors.push(duplicate(path.index(i), cidr));
      seen.add(cidr);
    });
  }
  return errors;
}

/** Upstream's ValidateNode: metadata is the store's; annotations, taints, resources and pod CIDRs here. */
function validateNode(node: Node, domain: string): FieldError[] {
  const errors = validateNodeAnnotations(node, domain);
  // Upstream reports the spec's taints under metadata.taints.
  if (node.spec?.taints?.length) errors.push(...validateTaints(node.spec.taints, newPath('metadata', 'taints')));
  errors.push(...validateResources(node, domain));
  if (node.spec?.podCIDRs?.length) errors.push(...validatePodCIDRs(node.spec.podCIDRs));
  return errors;
}

function validateConfigMapSource(source: ConfigMapNodeConfigSource, path: FieldPath, inStatus: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (inStatus) {
    if (!source.uid) errors.push(required(path.child('uid'), 'uid must be set in status'));
    if (!source.resourceVersion) errors.push(required(path.child('resourceVersion'), 'resourceVersion must be set in status'));
  } else {
    if (source.uid) errors.push(forbidden(path.child('uid'), 'uid must not be set in spec'));
    if (source.resourceVersion) errors.push(forbidden(path.child('resourceVersion'), 'resourceVersion must not be set in spec'));
  }
  if (!source.namespace) errors.push(required(path.child('namespace'), 'namespace must be set'));
  if (!source.name) errors.push(required(path.child('name'), 'name must be set'));
  if (!source.kubeletConfigKey) errors.push(required(path.child('kubeletConfigKey'), 'kubeletConfigKey must be set'));
  return errors;
}

function validateConfigSource(source: NodeConfigSource, path: FieldPath, inStatus: boolean): FieldError[] {
  if (!source.configMap) return [invalid(path, new GoFormatted('{}'), 'exactly one reference subfield must be non-nil')];
  return validateConfigMapSource(source.configMap, path.child('configMap'), inStatus);
}

const sameAddress = (a: NodeAddress, b: NodeAddress): boolean => a.type === b.type && a.address === b.address;

/** Upstream's ValidateNodeUpdate: pod CIDRs and providerID only from unset to set, no duplicate addresses. */
function validateNodeUpdate(node: Node, old: Node, domain: string): FieldError[] {
  const errors = validateNodeAnnotations(node, domain);
  errors.push(...validateResources(node, domain));
  const addresses = node.status?.addresses ?? [];
  addresses.forEach((address, i) => {
    if (addresses.slice(0, i).some((earlier) => sameAddress(earlier, address))) {
      errors.push(
        duplicate(
          newPath('status', 'addresses').index(i),
          new GoFormatted(`core.NodeAddress{Type:${goQuote(address.type ?? '')}, Address:${goQuote(address.address ?? '')}}`),
        ),
      );
    }
  });
  const oldCIDRs = old.spec?.podCIDRs ?? [];
  const cidrs = node.spec?.podCIDRs ?? [];
  if (oldCIDRs.length > 0) {
    const changed = oldCIDRs.length !== cidrs.length ? 1 : oldCIDRs.filter((cidr, i) => cidr !== cidrs[i]).length;
    for (let n = 0; n < changed; n++) {
      errors.push(forbidden(newPath('spec', 'podCIDRs'), 'node updates may not change podCIDR except from "" to valid'));
    }
  }
  const oldProvider = old.spec?.providerID ?? '';
  if (oldProvider && oldProvider !== (node.spec?.providerID ?? '')) {
    errors.push(forbidden(newPath('spec', 'providerID'), 'node updates may not change providerID except from "" to valid'));
  }
  if (node.spec?.configSource) errors.push(...validateConfigSource(node.spec.configSource, newPath('spec', 'configSource'), false));
  const config = node.status?.config;
  for (const part of ['assigned', 'active', 'lastKnownGood'] as const) {
    const source = config?.[part];
    if (source) errors.push(...validateConfigSource(source, newPath('status', 'config', part), true));
  }
  if (node.spec?.taints?.length) errors.push(...validateTaints(node.spec.taints, newPath('metadata', 'taints')));
  if ((node.spec?.externalID ?? '') !== (old.spec?.externalID ?? '')) errors.push(forbidden(newPath('spec', 'externalID'), 'may not be updated'));
  return errors;
}

/** What Go always writes of a NodeStatus: its struct fields daemonEndpoints and nodeInfo, zero when unset. */
function defaultNode(node: Node): void {
  node.spec ??= {};
  const status = (node.status ??= {});
  if (status.capacity && !status.allocatable) status.allocatable = { ...status.capacity };
  status.daemonEndpoints = { kubeletEndpoint: { Port: status.daemonEndpoints?.kubeletEndpoint?.Port ?? 0 } };
  const info = status.nodeInfo;
  status.nodeInfo = Object.fromEntries(systemInfoFields.map((name) => [name, info?.[name] ?? ''])) as unknown as NodeSystemInfo;
}

/** `object` with one top-level part taken from `old` (left out where `old` has none). */
function keepingPart(object: Node, old: Node, part: 'spec' | 'status'): Node {
  const merged = { ...object };
  if (old[part] === undefined) delete merged[part];
  else merged[part] = old[part] as never;
  return merged;
}

const statusSubresource: SubresourceDefinition<Node> = {
  merge(object, old) {
    const merged = keepingPart(object, old, 'spec');
    // The deprecated dynamic configuration is kept only where it is in use already.
    if (merged.status && !old.status?.config) {
      merged.status = { ...merged.status };
      delete merged.status.config;
    }
    return merged;
  },
  validateUpdate: (node, old, { domain }) => validateNodeUpdate(node, old, domain),
};

/** kubectl's roles of a node: `node-role.<prefix>/<role>` labels and the `<prefix>/role` label. */
function nodeRoles(node: Node, domain: string): string {
  const prefix = `node-role.${wellKnownPrefix(domain)}/`;
  const roleLabel = `${wellKnownPrefix(domain)}/role`;
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(prefix) && key.length > prefix.length) roles.add(key.slice(prefix.length));
    else if (key === roleLabel && value !== '') roles.add(value);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

/** kubectl's STATUS of a node: Ready or NotReady (Unknown without the condition), SchedulingDisabled when cordoned. */
export function nodeStatusText(node: Node): string {
  const ready = node.status?.conditions?.find((condition) => condition.type === 'Ready');
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

const addressOf = (node: Node, type: string): string => node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
const orUnknown = (text: string | undefined): string => text || '<unknown>';

const columns: ResourceDefinition<Node>['tableColumns'] = [
  nameColumn<Node>(),
  { name: 'Status', type: 'string', description: 'The status of the node', priority: 0, value: nodeStatusText },
  { name: 'Roles', type: 'string', description: 'The roles of the node', priority: 0, value: (node, { domain }) => nodeRoles(node, domain) },
  ageColumn<Node>(),
  { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.', priority: 0, value: (node) => node.status?.nodeInfo?.kubeletVersion ?? '' },
  { name: 'Internal-IP', type: 'string', description: 'List of addresses reachable to the node.', priority: 1, value: (node) => addressOf(node, 'InternalIP') },
  { name: 'External-IP', type: 'string', description: 'List of addresses reachable to the node.', priority: 1, value: (node) => addressOf(node, 'ExternalIP') },
  { name: 'OS-Image', type: 'string', description: 'OS Image reported by the node.', priority: 1, value: (node) => orUnknown(node.status?.nodeInfo?.osImage) },
  { name: 'Kernel-Version', type: 'string', description: 'Kernel Version reported by the node.', priority: 1, value: (node) => orUnknown(node.status?.nodeInfo?.kernelVersion) },
  {
    name: 'Container-Runtime',
    type: 'string',
    description: 'ContainerRuntime Version reported by the node.',
    priority: 1,
    value: (node) => orUnknown(node.status?.nodeInfo?.containerRuntimeVersion),
  },
];

export const nodeDefinition = {
  group: '',
  version: 'v1',
  kind: 'Node',
  zeroValue: { spec: {}, status: {} },
  resource: 'nodes',
  singularName: 'node',
  shortNames: ['no'],
  namespaced: false,
  verbs: allVerbs,
  schema: nodeSchema,
  strategy: {
    // Every field, status included, may be set on create; the deprecated dynamic configuration may not.
    prepareForCreate(node) {
      if (node.spec) delete node.spec.configSource;
      if (node.status) delete node.status.config;
    },
    prepareForUpdate(node, old) {
      if (old.status === undefined) delete node.status;
      else node.status = old.status;
      if (node.spec && !old.spec?.configSource) delete node.spec.configSource;
    },
    default: defaultNode,
    validate: (node, { domain }) => validateNode(node, domain),
    validateUpdate: (node, old, { domain }) => [...validateNode(node, domain), ...validateNodeUpdate(node, old, domain)],
  },
  selectableFields: (node) => ({ 'spec.unschedulable': String(node.spec?.unschedulable ?? false) }),
  tableColumns: columns,
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.core.v1.Node', pointers: ['spec.configSource', 'status.config', 'spec.taints.timeAdded'] },
  subresources: { status: statusSubresource },
} satisfies ResourceDefinition<Node>;
