// The default ClusterRoles and ClusterRoleBindings created at start-up: upstream 1.28's bootstrap policy for the roles we serve.
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, apiGroupFor, rbacGroup, SYSTEM_MASTERS, wellKnownPrefix } from './domain.js';
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from './types.js';

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
  ];
}

const clusterRoleBindings: { name: string; groups: string[] }[] = [
  { name: 'cluster-admin', groups: [SYSTEM_MASTERS] },
  { name: 'system:discovery', groups: [ALL_AUTHENTICATED] },
  { name: 'system:basic-user', groups: [ALL_AUTHENTICATED] },
  { name: 'system:public-info-viewer', groups: [ALL_AUTHENTICATED, ALL_UNAUTHENTICATED] },
];

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
    clusterRoles: clusterRoles(domain).map(({ name, labels, aggregateFrom, rules }) => {
      const role: ClusterRole = { apiVersion: `${group}/v1`, kind: 'ClusterRole', metadata: metadata(name, labels) };
      if (aggregateFrom) {
        role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [aggregateToLabel(domain, aggregateFrom)]: 'true' } }] };
      }
      if (rules) role.rules = rules;
      return role;
    }),
    clusterRoleBindings: clusterRoleBindings.map(({ name, groups }) => ({
      apiVersion: `${group}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: metadata(name),
      roleRef: { apiGroup: group, kind: 'ClusterRole', name },
      subjects: groups.map((subject) => ({ kind: 'Group', apiGroup: group, name: subject })),
    })),
  };
}
