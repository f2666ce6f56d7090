// The default ClusterRoles and ClusterRoleBindings created at start-up: upstream 1.28's bootstrap policy for the roles we serve.
import {
  ALL_AUTHENTICATED,
  ALL_UNAUTHENTICATED,
  apiGroupFor,
  controllerManagerUser,
  rbacGroup,
  SYSTEM_MASTERS,
  SYSTEM_NODES,
  systemPrefix,
  wellKnownPrefix,
} from './domain.js';
import type { ClusterRole, ClusterRoleBinding } from './types.js';
import type { PolicyRule, Subject } from '@plat/apimachinery';

const read = ['get', 'list', 'watch'];
const write = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const readWrite = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** Upstream's rbacv1helpers.NewRule(verbs).Groups(groups).Resources(resources), groups named under the domain. */
const rule = (verbs: string[], groups: string[], resources: string[], domain: string): PolicyRule => ({
  apiGroups: groups.map((group) => apiGroupFor(group, domain)),
  resources,
  verbs,
});

const urlRule = (verbs: string[], urls: string[]): PolicyRule => ({ nonResourceURLs: urls, verbs });

/** The service account each of our controllers runs as (apps/controller-manager/src/controller-accounts.ts says the same). */
const controllerServiceAccounts = {
  'namespace-controller': 'namespace-controller',
  'serviceaccount-controller': 'service-account-controller',
  'clusterrole-aggregation-controller': 'clusterrole-aggregation-controller',
  'garbage-collector-controller': 'generic-garbage-collector',
  'crd-cleanup-controller': 'crd-cleanup-controller',
  'node-lifecycle-controller': 'node-controller',
} as const;

function controllerRoles(domain: string): { name: string; rules: PolicyRule[] }[] {
  const r = (verbs: string[], groups: string[], resources: string[]): PolicyRule => rule(verbs, groups, resources, domain);
  // Upstream's eventsRule(): every controller may record events.
  const events = r(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);
  const prefix = systemPrefix(domain);
  return [
    {
      // upstream system:kube-controller-manager: its own identity, with which it elects a leader,
      // watches everything, and gets its controllers' service-account tokens.
      name: controllerManagerUser(domain),
      rules: [
        events,
        r(['create'], ['coordination.k8s.io'], ['leases']),
        { ...r(['get', 'update'], ['coordination.k8s.io'], ['leases']), resourceNames: [`${prefix}-controller-manager`] },
        r(['create'], [''], ['secrets', 'serviceaccounts']),
        r(['delete'], [''], ['secrets']),
        r(['get'], [''], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
        r(['update'], [''], ['secrets', 'serviceaccounts']),
        r(['create'], ['authentication.k8s.io'], ['tokenreviews']),
        r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
        r(['list', 'watch'], ['*'], ['*']),
        r(['create'], [''], ['serviceaccounts/token']),
      ],
    },
    {
      name: 'system:controller:clusterrole-aggregation-controller',
      rules: [r(['escalate', 'get', 'list', 'patch', 'update', 'watch'], ['rbac.authorization.k8s.io'], ['clusterroles'])],
    },
    {
      // Ours: upstream runs this cleanup (its CRD finalizer) inside the API server, with its storage.
      name: 'system:controller:crd-cleanup-controller',
      rules: [
        r(['get', 'list', 'watch'], ['apiextensions.k8s.io'], ['customresourcedefinitions']),
        r(['update'], ['apiextensions.k8s.io'], ['customresourcedefinitions/status']),
        r(['list', 'deletecollection'], ['*'], ['*']),
        events,
      ],
    },
    {
      name: 'system:controller:generic-garbage-collector',
      rules: [r(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), events],
    },
    {
      name: 'system:controller:namespace-controller',
      rules: [
        r(['get', 'list', 'watch', 'delete'], [''], ['namespaces']),
        r(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
        r(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*']),
        events,
      ],
    },
    {
      // Marks nodes whose agent stopped renewing its Lease: their Ready condition and taints.
      name: 'system:controller:node-controller',
      rules: [
        r(['get', 'list', 'update', 'delete', 'patch'], [''], ['nodes']),
        r(['patch', 'update'], [''], ['nodes/status']),
        r(['patch', 'update'], [''], ['pods/status']),
        r(['list', 'delete'], [''], ['pods']),
        events,
      ],
    },
    {
      name: 'system:controller:service-account-controller',
      rules: [r(['create'], [''], ['serviceaccounts']), events],
    },
  ];
}

/** The aggregation label `rbac.authorization.<domain>/aggregate-to-<role>`. */
export const aggregateToLabel = (domain: string, role: 'admin' | 'edit' | 'view'): string => `${rbacGroup(domain)}/aggregate-to-${role}`;

/** The label every bootstrap object carries (upstream's `kubernetes.io/bootstrapping: rbac-defaults`). */
export const bootstrappingLabel = (domain: string): string => `${wellKnownPrefix(domain)}/bootstrapping`;

/** The annotation that lets start-up reconcile a bootstrap object (upstream's `rbac.authorization.kubernetes.io/autoupdate`). */
export const autoupdateAnnotation = (domain: string): string => `rbac.authorization.${wellKnownPrefix(domain)}/autoupdate`;

type AggregatedRole = 'admin' | 'edit' | 'view';

function clusterRoles(domain: string): { name: string; labels?: Record<string, string>; aggregateFrom?: AggregatedRole; rules?: PolicyRule[] }[] {
  const r = (verbs: string[], groups: string[], resources: string[]): PolicyRule => rule(verbs, groups, resources, domain);
  const label = (role: AggregatedRole): Record<string, string> => ({ [aggregateToLabel(domain, role)]: 'true' });
  return [
    {
      // A "root" role which can do absolutely anything.
      name: 'cluster-admin',
      rules: [r(['*'], ['*'], ['*']), urlRule(['*'], ['*'])],
    },
    {
      // Just enough to tell whether the server is ready and to discover API versions.
      name: 'system:discovery',
      rules: [
        urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*']),
      ],
    },
    {
      // What a "normal" user needs to learn about themselves.
      name: 'system:basic-user',
      rules: [
        r(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
        r(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
      ],
    },
    {
      // Insensitive cluster information.
      name: 'system:public-info-viewer',
      rules: [urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])],
    },
    // admin, edit and view hold no rules of their own: the aggregation controller fills them from
    // the roles carrying their labels, the system:aggregate-to-* roles below first among them.
    { name: 'admin', aggregateFrom: 'admin' },
    { name: 'edit', labels: label('admin'), aggregateFrom: 'edit' },
    { name: 'view', labels: label('edit'), aggregateFrom: 'view' },
    {
      name: 'system:aggregate-to-admin',
      labels: label('admin'),
      rules: [
        r(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
        r(readWrite, ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']),
      ],
    },
    {
      // Every user-level action in a namespace, without the system's "privileged" resources
      // (status subresources, quota and limits, which control namespaces).
      name: 'system:aggregate-to-edit',
      labels: label('edit'),
      rules: [
        r(read, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        r(['impersonate'], [''], ['serviceaccounts']),
        r(write, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        r(['create'], [''], ['pods/eviction']),
        r(write, [''], [
          'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts',
          'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events',
        ]),
        r(['create'], [''], ['serviceaccounts/token']),
        r(write, ['apps'], [
          'statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback',
          'replicasets', 'replicasets/scale',
        ]),
        r(write, ['autoscaling'], ['horizontalpodautoscalers']),
        r(write, ['batch'], ['jobs', 'cronjobs']),
        r(write, ['extensions'], [
          'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses',
          'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies',
        ]),
        r(write, ['policy'], ['poddisruptionbudgets']),
        r(write, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
        r(readWrite, ['coordination.k8s.io'], ['leases']),
      ],
    },
    {
      // Read-only access to a namespace's non-escalating resources.
      name: 'system:aggregate-to-view',
      labels: label('view'),
      rules: [
        r(read, [''], [
          'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts',
          'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps',
        ]),
        r(read, [''], [
          'limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status',
          'namespaces/status', 'replicationcontrollers/status', 'pods/log',
        ]),
        // Reading namespaces at namespace scope means reading *this* namespace: a hint of which namespaces one may use.
        r(read, [''], ['namespaces']),
        r(read, ['discovery.k8s.io'], ['endpointslices']),
        r(read, ['apps'], [
          'controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status',
          'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale',
        ]),
        r(read, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        r(read, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
        r(read, ['extensions'], [
          'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status',
          'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies',
        ]),
        r(read, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        r(read, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
      ],
    },
    {
      // What a node agent needs: register and report its Node, renew its Lease, check the
      // credentials of requests to its own server, and read what its pods use.
      name: 'system:node',
      rules: [
        r(['create'], ['authentication.k8s.io'], ['tokenreviews']),
        r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
        r(read, [''], ['services']),
        r(['create', 'get', 'list', 'watch'], [''], ['nodes']),
        r(['update', 'patch'], [''], ['nodes/status']),
        r(['update', 'patch'], [''], ['nodes']),
        r(['create', 'update', 'patch'], [''], ['events']),
        r(read, [''], ['pods']),
        r(['create', 'delete'], [''], ['pods']),
        r(['update', 'patch'], [''], ['pods/status']),
        r(['create'], [''], ['pods/eviction']),
        r(['get', 'list', 'watch'], [''], ['secrets', 'configmaps']),
        r(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
        r(['get'], [''], ['endpoints']),
        r(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
        r(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
        r(['get'], ['storage.k8s.io'], ['volumeattachments']),
        r(['create'], [''], ['serviceaccounts/token']),
        r(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
        r(['get', 'watch', 'list'], ['storage.k8s.io'], ['csidrivers']),
        r(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
        r(['get', 'list', 'watch'], ['node.k8s.io'], ['runtimeclasses']),
      ],
    },
    {
      // Full access to the node agents' API (their secured servers), for the API server's own client.
      name: 'system:kubelet-api-admin',
      rules: [
        r(['get', 'list', 'watch'], [''], ['nodes']),
        r(['proxy'], [''], ['nodes']),
        r(['*'], [''], ['nodes/proxy', 'nodes/metrics', 'nodes/spec', 'nodes/stats', 'nodes/log']),
      ],
    },
  ];
}

function clusterRoleBindings(domain: string): { name: string; subjects: Subject[] }[] {
  const group = rbacGroup(domain);
  const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', apiGroup: group, name }));
  const systemNamespace = `${systemPrefix(domain)}-system`;
  return [
    { name: 'cluster-admin', subjects: groups(SYSTEM_MASTERS) },
    { name: 'system:discovery', subjects: groups(ALL_AUTHENTICATED) },
    { name: 'system:basic-user', subjects: groups(ALL_AUTHENTICATED) },
    { name: 'system:public-info-viewer', subjects: groups(ALL_AUTHENTICATED, ALL_UNAUTHENTICATED) },
    { name: controllerManagerUser(domain), subjects: [{ kind: 'User', apiGroup: group, name: controllerManagerUser(domain) }] },
    // Upstream leaves this binding empty and lets its Node authorizer confine each node to its own
    // objects; without that authorizer, every member of system:nodes holds the role, as before it.
    { name: 'system:node', subjects: groups(SYSTEM_NODES) },
    // Each controller role to the service account its controller runs as (--use-service-account-credentials).
    ...Object.values(controllerServiceAccounts).sort().map((account) => ({
      name: `system:controller:${account}`,
      subjects: [{ kind: 'ServiceAccount', name: account, namespace: systemNamespace }],
    })),
  ];
}

/**
 * The bootstrap ClusterRoles and their ClusterRoleBindings, in upstream's order, API groups and
 * label and annotation names mapped to the domain (under k8s.io, exactly upstream's objects).
 * Every object is labelled `<prefix>/bootstrapping: rbac-defaults` and annotated
 * `rbac.authorization.<prefix>/autoupdate: "true"`. The aggregated roles admin, edit and view
 * carry no rules: compute them with aggregateClusterRole (view, then edit, then admin).
 */
export function bootstrapPolicy(domain: string): { clusterRoles: ClusterRole[]; clusterRoleBindings: ClusterRoleBinding[] } {
  const group = rbacGroup(domain);
  const metadata = (name: string, labels: Record<string, string> = {}): ClusterRole['metadata'] => ({
    name,
    labels: { ...labels, [bootstrappingLabel(domain)]: 'rbac-defaults' },
    annotations: { [autoupdateAnnotation(domain)]: 'true' },
  });
  return {
    clusterRoles: [...clusterRoles(domain), ...controllerRoles(domain)].map(({ name, labels, aggregateFrom, rules }: ReturnType<typeof clusterRoles>[number]) => {
      const role: ClusterRole = { apiVersion: `${group}/v1`, kind: 'ClusterRole', metadata: metadata(name, labels) };
      if (aggregateFrom) {
        role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [aggregateToLabel(domain, aggregateFrom)]: 'true' } }] };
      }
      if (rules) role.rules = rules;
      return role;
    }),
    clusterRoleBindings: clusterRoleBindings(domain).map(({ name, subjects }) => ({
      apiVersion: `${group}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: metadata(name),
      roleRef: { apiGroup: group, kind: 'ClusterRole', name },
      subjects,
    })),
  };
}
