// Which kinds have a Protobuf form, and the message each is carried in.

export interface ProtobufKind {
  /**
   * The API group without its domain: "" for core, "rbac.authorization" for
   * rbac.authorization.plat.io and rbac.authorization.k8s.io alike.
   */
  group: string;
  version: string;
  kind: string;
  /** The full name of the message in upstream's .proto files, e.g. `k8s.io.api.rbac.v1.Role`. */
  message: string;
}

export interface GroupVersionKind {
  /** The group as the API serves it (`rbac.authorization.plat.io`), or without its domain. */
  group: string;
  version: string;
  kind: string;
}

const CORE = 'k8s.io.api.core.v1';
const RBAC = 'k8s.io.api.rbac.v1';
const NETWORKING = 'k8s.io.api.networking.v1alpha1';
const COORDINATION = 'k8s.io.api.coordination.v1';
const AUTHORIZATION = 'k8s.io.api.authorization.v1';
const AUTHENTICATION = 'k8s.io.api.authentication.v1';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

const kindsOf = (group: string, version: string, pkg: string, kinds: readonly string[]): ProtobufKind[] =>
  kinds.map((kind) => ({ group, version, kind, message: `${pkg}.${kind}` }));

/** Kinds that upstream registers in every group version, so they are found under any group. */
const everyGroupKinds: readonly ProtobufKind[] = [
  { group: '', version: 'v1', kind: 'Status', message: `${META}.Status` },
  { group: '', version: 'v1', kind: 'DeleteOptions', message: `${META}.DeleteOptions` },
];

/** Every kind with a Protobuf form. Status and DeleteOptions are accepted under any group version. */
export const protobufKinds: readonly ProtobufKind[] = [
  ...kindsOf('', 'v1', CORE, [
    'Namespace',
    'NamespaceList',
    'ServiceAccount',
    'ServiceAccountList',
    'LimitRange',
    'LimitRangeList',
  ]),
  ...kindsOf('rbac.authorization', 'v1', RBAC, [
    'Role',
    'RoleList',
    'ClusterRole',
    'ClusterRoleList',
    'RoleBinding',
    'RoleBindingList',
    'ClusterRoleBinding',
    'ClusterRoleBindingList',
  ]),
  ...kindsOf('networking', 'v1alpha1', NETWORKING, ['IPAddress', 'IPAddressList']),
  ...kindsOf('coordination', 'v1', COORDINATION, ['Lease', 'LeaseList']),
  ...kindsOf('authorization', 'v1', AUTHORIZATION, [
    'SubjectAccessReview',
    'LocalSubjectAccessReview',
    'SelfSubjectAccessReview',
    'SelfSubjectRulesReview',
  ]),
  ...kindsOf('authentication', 'v1', AUTHENTICATION, ['TokenReview', 'TokenRequest', 'SelfSubjectReview']),
  ...everyGroupKinds,
];

const byKey = new Map(protobufKinds.map((k) => [`${k.group}/${k.version}/${k.kind}`, k]));
const everyGroup = new Map(everyGroupKinds.map((k) => [k.kind, k]));
// Longest first, although the "." boundary already keeps "authorization" from matching "rbac.authorization.*".
const namedGroups = [...new Set(protobufKinds.map((k) => k.group).filter((g) => g !== ''))].sort((a, b) => b.length - a.length);

/**
 * The group without its domain: `rbac.authorization.plat.io` and `rbac.authorization.k8s.io` (or
 * any other domain) become `rbac.authorization`; "" stays the core group. A group none of our kinds
 * belongs to is returned unchanged.
 */
export function protobufGroup(group: string): string {
  if (group === '') return '';
  for (const known of namedGroups) {
    if (group === known || group.startsWith(`${known}.`)) return known;
  }
  return group;
}

/** The registered kind for a group (with or without its domain), version and kind, if any. */
export function findProtobufKind(group: string, version: string, kind: string): ProtobufKind | undefined {
  return byKey.get(`${protobufGroup(group)}/${version}/${kind}`) ?? everyGroup.get(kind);
}

/** Whether objects of this kind can be carried as Protobuf. */
export function hasProtobuf(group: string, version: string, kind: string): boolean {
  return findProtobufKind(group, version, kind) !== undefined;
}

/** Splits an apiVersion ("v1", "rbac.authorization.plat.io/v1") into group and version. */
export function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
