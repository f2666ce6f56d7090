import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authorize, privilegedGroupAuthorizer } from './authorize.js';
import { RbacIndex } from './rbac-index.js';
import { nonResourceAttributes, resourceAttributes, user } from './testing.js';
import type { AccessAttributes, PolicyRule, Subject, UserInfo } from '@plat/apimachinery';

const rbac = 'rbac.authorization.plat.io';

type RoleSpec = { kind: 'Role' | 'ClusterRole'; name: string; namespace?: string; rules: PolicyRule[] };
type BindingSpec = {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  name: string;
  namespace?: string;
  /** "Role/name" or "ClusterRole/name" (or any other kind, for unresolvable references). */
  role: string;
  subjects: Subject[];
};

interface Case {
  name: string;
  roles?: RoleSpec[];
  bindings: BindingSpec[];
  request: AccessAttributes;
  decision: 'Allow' | 'NoOpinion';
  /** Exact reason; when absent, an allow only has to start with "RBAC: allowed by" and a no-opinion must be "". */
  reason?: string;
  evaluationError?: string;
  domain?: string;
}

const alice = user('alice');
const bob = user('bob', ['devs', 'system:authenticated']);
const sa = (namespace: string, name: string): UserInfo => user(`system:serviceaccount:${namespace}:${name}`, ['system:serviceaccounts']);
const User = (name: string): Subject => ({ kind: 'User', apiGroup: rbac, name });
const Group = (name: string): Subject => ({ kind: 'Group', apiGroup: rbac, name });
const ServiceAccount = (name: string, namespace?: string): Subject => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

/** alice holds `rules` through RoleBinding "rb" in "default" (Role "r"). */
const inDefault = (rules: PolicyRule[]): Pick<Case, 'roles' | 'bindings'> => ({
  roles: [{ kind: 'Role', name: 'r', namespace: 'default', rules }],
  bindings: [{ kind: 'RoleBinding', name: 'rb', namespace: 'default', role: 'Role/r', subjects: [User('alice')] }],
});
/** alice holds `rules` everywhere through ClusterRoleBinding "crb" (ClusterRole "cr"). */
const everywhere = (rules: PolicyRule[], subjects: Subject[] = [User('alice')]): Pick<Case, 'roles' | 'bindings'> => ({
  roles: [{ kind: 'ClusterRole', name: 'cr', rules }],
  bindings: [{ kind: 'ClusterRoleBinding', name: 'crb', role: 'ClusterRole/cr', subjects }],
});

const get = (u: UserInfo, resource: string, extra: Partial<Parameters<typeof resourceAttributes>[2]> = {}): AccessAttributes =>
  resourceAttributes(u, 'get', { resource, namespace: 'default', ...extra });

const cases: Case[] = [
  // Verbs.
  {
    name: 'a listed verb is allowed, with the binding as reason',
    ...inDefault([rule(['get', 'list'], [''], ['pods'])]),
    request: resourceAttributes(alice, 'list', { resource: 'pods', namespace: 'default' }),
    decision: 'Allow',
    reason: 'RBAC: allowed by RoleBinding "rb/default" of Role "r" to User "alice"',
  },
  {
    name: 'a verb not listed is not allowed',
    ...inDefault([rule(['get', 'list'], [''], ['pods'])]),
    request: resourceAttributes(alice, 'delete', { resource: 'pods', namespace: 'default', name: 'p' }),
    decision: 'NoOpinion',
    reason: '',
  },
  {
    name: 'verb "*" allows every verb',
    ...inDefault([rule(['*'], [''], ['pods'])]),
    request: resourceAttributes(alice, 'deletecollection', { resource: 'pods', namespace: 'default' }),
    decision: 'Allow',
  },
  {
    name: 'a request for verb "*" needs a "*" rule',
    ...inDefault([rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [''], ['pods'])]),
    request: resourceAttributes(alice, '*', { resource: 'pods', namespace: 'default' }),
    decision: 'NoOpinion',
  },
  {
    name: 'custom verbs (escalate, bind, impersonate) match like any other',
    ...everywhere([rule(['impersonate'], [''], ['serviceaccounts'])]),
    request: resourceAttributes(alice, 'impersonate', { resource: 'serviceaccounts', namespace: 'ns', name: 'x' }),
    decision: 'Allow',
  },
  // API groups.
  {
    name: 'the core group "" is its own group',
    ...inDefault([rule(['get'], [''], ['deployments'])]),
    request: get(alice, 'deployments', { group: 'apps' }),
    decision: 'NoOpinion',
  },
  {
    name: 'a rule for apps does not reach the core group',
    ...inDefault([rule(['get'], ['apps'], ['pods'])]),
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
  },
  {
    name: 'apiGroups "*" allows any group',
    ...inDefault([rule(['get'], ['*'], ['deployments'])]),
    request: get(alice, 'deployments', { group: 'apps' }),
    decision: 'Allow',
  },
  {
    name: 'several groups allow any listed resource in any of them',
    ...inDefault([rule(['get'], ['apps', 'batch'], ['jobs', 'deployments'])]),
    request: get(alice, 'deployments', { group: 'batch' }),
    decision: 'Allow',
  },
  // Resources and subresources.
  {
    name: 'resources "*" allows every resource of the group, subresources included',
    ...inDefault([rule(['get'], [''], ['*'])]),
    request: get(alice, 'pods', { subresource: 'log', name: 'p' }),
    decision: 'Allow',
  },
  {
    name: 'a resource does not allow its subresources',
    ...inDefault([rule(['get'], [''], ['pods'])]),
    request: get(alice, 'pods', { subresource: 'log', name: 'p' }),
    decision: 'NoOpinion',
  },
  {
    name: 'resource/subresource allows that subresource',
    ...inDefault([rule(['get'], [''], ['pods/log'])]),
    request: get(alice, 'pods', { subresource: 'log', name: 'p' }),
    decision: 'Allow',
  },
  {
    name: 'resource/subresource does not allow the resource',
    ...inDefault([rule(['get'], [''], ['pods/log'])]),
    request: get(alice, 'pods', { name: 'p' }),
    decision: 'NoOpinion',
  },
  {
    name: 'resource/subresource does not allow another subresource',
    ...inDefault([rule(['get'], [''], ['pods/log'])]),
    request: get(alice, 'pods', { subresource: 'exec', name: 'p' }),
    decision: 'NoOpinion',
  },
  {
    name: '*/subresource allows that subresource of every resource',
    ...inDefault([rule(['update'], ['apps'], ['*/scale'])]),
    request: resourceAttributes(alice, 'update', { group: 'apps', resource: 'deployments', subresource: 'scale', name: 'd', namespace: 'default' }),
    decision: 'Allow',
  },
  {
    name: '*/subresource does not allow the resource itself',
    ...inDefault([rule(['update'], ['apps'], ['*/scale'])]),
    request: resourceAttributes(alice, 'update', { group: 'apps', resource: 'deployments', name: 'd', namespace: 'default' }),
    decision: 'NoOpinion',
  },
  {
    name: '*/subresource does not allow another subresource',
    ...inDefault([rule(['update'], ['apps'], ['*/scale'])]),
    request: resourceAttributes(alice, 'update', { group: 'apps', resource: 'deployments', subresource: 'status', name: 'd', namespace: 'default' }),
    decision: 'NoOpinion',
  },
  // Resource names.
  {
    name: 'resourceNames allows a listed name',
    ...inDefault([rule(['get', 'update'], [''], ['configmaps'], ['settings'])]),
    request: get(alice, 'configmaps', { name: 'settings' }),
    decision: 'Allow',
  },
  {
    name: 'resourceNames refuses another name',
    ...inDefault([rule(['get', 'update'], [''], ['configmaps'], ['settings'])]),
    request: get(alice, 'configmaps', { name: 'secrets-in-disguise' }),
    decision: 'NoOpinion',
  },
  {
    name: 'resourceNames refuses a request without a name (list, create)',
    ...inDefault([rule(['list', 'create'], [''], ['configmaps'], ['settings'])]),
    request: resourceAttributes(alice, 'list', { resource: 'configmaps', namespace: 'default' }),
    decision: 'NoOpinion',
  },
  {
    name: 'resourceNames applies to subresources too',
    ...inDefault([rule(['get'], [''], ['pods/log'], ['p1'])]),
    request: get(alice, 'pods', { subresource: 'log', name: 'p1' }),
    decision: 'Allow',
  },
  // Non-resource URLs.
  {
    name: 'an exact URL is allowed',
    ...everywhere([urls(['get'], ['/healthz'])]),
    request: nonResourceAttributes(alice, 'get', '/healthz'),
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cr" to User "alice"',
  },
  {
    name: 'an exact URL does not allow paths below it',
    ...everywhere([urls(['get'], ['/healthz'])]),
    request: nonResourceAttributes(alice, 'get', '/healthz/etcd'),
    decision: 'NoOpinion',
  },
  {
    name: 'a trailing * allows every path below',
    ...everywhere([urls(['get'], ['/apis/*'])]),
    request: nonResourceAttributes(alice, 'get', '/apis/apps/v1'),
    decision: 'Allow',
  },
  {
    name: 'a trailing /* does not allow the bare prefix',
    ...everywhere([urls(['get'], ['/apis/*'])]),
    request: nonResourceAttributes(alice, 'get', '/apis'),
    decision: 'NoOpinion',
  },
  {
    name: 'a trailing * matches by prefix, not by segment (as upstream)',
    ...everywhere([urls(['get'], ['/api*'])]),
    request: nonResourceAttributes(alice, 'get', '/apis/apps'),
    decision: 'Allow',
  },
  {
    name: 'URL "*" allows every path',
    ...everywhere([urls(['get'], ['*'])]),
    request: nonResourceAttributes(alice, 'get', '/metrics'),
    decision: 'Allow',
  },
  {
    name: 'a URL rule needs the verb',
    ...everywhere([urls(['get'], ['*'])]),
    request: nonResourceAttributes(alice, 'post', '/metrics'),
    decision: 'NoOpinion',
  },
  {
    name: 'URL rules do not allow resource requests',
    ...everywhere([urls(['*'], ['*'])]),
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
  },
  {
    name: 'resource rules do not allow URLs',
    ...everywhere([rule(['*'], ['*'], ['*'])]),
    request: nonResourceAttributes(alice, 'get', '/version'),
    decision: 'NoOpinion',
  },
  {
    name: 'URL rules of a ClusterRole bound by a RoleBinding do nothing (URLs have no namespace)',
    roles: [{ kind: 'ClusterRole', name: 'urls', rules: [urls(['get'], ['*'])] }],
    bindings: [{ kind: 'RoleBinding', name: 'rb', namespace: 'default', role: 'ClusterRole/urls', subjects: [User('alice')] }],
    request: nonResourceAttributes(alice, 'get', '/version'),
    decision: 'NoOpinion',
  },
  // Scope of bindings.
  {
    name: 'a RoleBinding is effective in its namespace',
    ...inDefault([rule(['get'], [''], ['pods'])]),
    request: get(alice, 'pods', { namespace: 'default' }),
    decision: 'Allow',
  },
  {
    name: 'a RoleBinding is not effective in another namespace',
    ...inDefault([rule(['get'], [''], ['pods'])]),
    request: get(alice, 'pods', { namespace: 'kube-system' }),
    decision: 'NoOpinion',
  },
  {
    name: 'a RoleBinding is not effective at cluster scope (list across namespaces)',
    ...inDefault([rule(['list'], [''], ['pods'])]),
    request: resourceAttributes(alice, 'list', { resource: 'pods' }),
    decision: 'NoOpinion',
  },
  {
    name: 'a RoleBinding to a ClusterRole grants its rules in the binding namespace',
    roles: [{ kind: 'ClusterRole', name: 'pod-reader', rules: [rule(['get'], [''], ['pods'])] }],
    bindings: [{ kind: 'RoleBinding', name: 'read', namespace: 'dev', role: 'ClusterRole/pod-reader', subjects: [User('alice')] }],
    request: get(alice, 'pods', { namespace: 'dev' }),
    decision: 'Allow',
    reason: 'RBAC: allowed by RoleBinding "read/dev" of ClusterRole "pod-reader" to User "alice"',
  },
  {
    name: 'a RoleBinding to a ClusterRole grants nothing elsewhere',
    roles: [{ kind: 'ClusterRole', name: 'pod-reader', rules: [rule(['get'], [''], ['pods'])] }],
    bindings: [{ kind: 'RoleBinding', name: 'read', namespace: 'dev', role: 'ClusterRole/pod-reader', subjects: [User('alice')] }],
    request: get(alice, 'pods', { namespace: 'prod' }),
    decision: 'NoOpinion',
  },
  {
    name: 'a RoleBinding to a Role reads the Role of its own namespace',
    roles: [
      { kind: 'Role', name: 'r', namespace: 'other', rules: [rule(['get'], [''], ['pods'])] },
      { kind: 'Role', name: 'r', namespace: 'dev', rules: [rule(['get'], [''], ['secrets'])] },
    ],
    bindings: [{ kind: 'RoleBinding', name: 'rb', namespace: 'dev', role: 'Role/r', subjects: [User('alice')] }],
    request: get(alice, 'pods', { namespace: 'dev' }),
    decision: 'NoOpinion',
  },
  {
    name: 'a ClusterRoleBinding is effective in every namespace',
    ...everywhere([rule(['get'], [''], ['pods'])]),
    request: get(alice, 'pods', { namespace: 'anywhere' }),
    decision: 'Allow',
  },
  {
    name: 'a ClusterRoleBinding is effective at cluster scope',
    ...everywhere([rule(['get'], [''], ['nodes'])]),
    request: resourceAttributes(alice, 'get', { resource: 'nodes', name: 'n1' }),
    decision: 'Allow',
  },
  // Subjects.
  {
    name: 'a user subject matches the user name exactly',
    ...everywhere([rule(['get'], [''], ['pods'])], [User('Alice')]),
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
  },
  {
    name: 'a group subject matches members of the group',
    ...everywhere([rule(['get'], [''], ['pods'])], [Group('devs')]),
    request: get(bob, 'pods'),
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cr" to Group "devs"',
  },
  {
    name: 'a group subject does not match a user of that name',
    ...everywhere([rule(['get'], [''], ['pods'])], [Group('alice')]),
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
  },
  {
    name: 'the first subject that applies is the one reported',
    ...everywhere([rule(['get'], [''], ['pods'])], [User('carol'), Group('devs'), User('bob')]),
    request: get(bob, 'pods'),
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cr" to Group "devs"',
  },
  {
    name: 'a service-account subject matches system:serviceaccount:<ns>:<name>',
    ...everywhere([rule(['get'], [''], ['pods'])], [ServiceAccount('builder', 'ci')]),
    request: get(sa('ci', 'builder'), 'pods'),
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cr" to ServiceAccount "builder/ci"',
  },
  {
    name: 'a service-account subject of another namespace does not match',
    ...everywhere([rule(['get'], [''], ['pods'])], [ServiceAccount('builder', 'ci')]),
    request: get(sa('prod', 'builder'), 'pods'),
    decision: 'NoOpinion',
  },
  {
    name: 'a RoleBinding service account without namespace is in the binding namespace',
    roles: [{ kind: 'Role', name: 'r', namespace: 'dev', rules: [rule(['get'], [''], ['pods'])] }],
    bindings: [{ kind: 'RoleBinding', name: 'rb', namespace: 'dev', role: 'Role/r', subjects: [ServiceAccount('app')] }],
    request: get(sa('dev', 'app'), 'pods', { namespace: 'dev' }),
    decision: 'Allow',
    reason: 'RBAC: allowed by RoleBinding "rb/dev" of Role "r" to ServiceAccount "app/dev"',
  },
  {
    name: 'a ClusterRoleBinding service account without namespace matches no one',
    ...everywhere([rule(['get'], [''], ['pods'])], [ServiceAccount('app')]),
    request: get(sa('default', 'app'), 'pods'),
    decision: 'NoOpinion',
  },
  {
    name: 'a user subject named like a service account matches it',
    ...everywhere([rule(['get'], [''], ['pods'])], [User('system:serviceaccount:ci:builder')]),
    request: get(sa('ci', 'builder'), 'pods'),
    decision: 'Allow',
  },
  // Malformed subjects: they never apply, and the user they would name is told, as the Subject
  // type asks of the authorizer.
  {
    name: 'a User subject with a namespace does not apply and is an evaluation error',
    ...everywhere([rule(['get'], [''], ['pods'])], [{ ...User('alice'), namespace: 'x' }]),
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    evaluationError: 'ClusterRoleBinding "crb": User subject "alice" cannot have a namespace: "x"',
  },
  {
    name: 'a Group subject with a namespace does not apply to its members and is an evaluation error',
    ...everywhere([rule(['get'], [''], ['pods'])], [{ ...Group('devs'), namespace: 'x' }]),
    request: get(bob, 'pods'),
    decision: 'NoOpinion',
    evaluationError: 'ClusterRoleBinding "crb": Group subject "devs" cannot have a namespace: "x"',
  },
  {
    name: 'a RoleBinding User subject with a namespace is an evaluation error, the binding named with its namespace',
    roles: [{ kind: 'Role', name: 'r', namespace: 'default', rules: [rule(['get'], [''], ['pods'])] }],
    bindings: [{ kind: 'RoleBinding', name: 'rb', namespace: 'default', role: 'Role/r', subjects: [{ ...User('alice'), namespace: 'default' }] }],
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    evaluationError: 'RoleBinding "rb/default": User subject "alice" cannot have a namespace: "default"',
  },
  {
    name: 'a User subject with an empty namespace applies',
    ...everywhere([rule(['get'], [''], ['pods'])], [{ ...User('alice'), namespace: '' }]),
    request: get(alice, 'pods'),
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cr" to User "alice"',
  },
  {
    name: 'a malformed subject naming someone else is not reported to the user',
    ...everywhere([rule(['get'], [''], ['pods'])], [{ ...User('carol'), namespace: 'x' }, { kind: 'Robot', name: 'carol' }]),
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    reason: '',
  },
  {
    name: 'a well-formed subject of the same binding still applies',
    ...everywhere([rule(['get'], [''], ['pods'])], [{ ...User('bob'), namespace: 'x' }, Group('devs')]),
    request: get(bob, 'pods'),
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cr" to Group "devs"',
  },
  {
    name: 'a malformed subject is reported, not the roleRef of a binding that does not apply',
    bindings: [{ kind: 'ClusterRoleBinding', name: 'crb', role: 'ClusterRole/gone', subjects: [{ ...User('alice'), namespace: 'x' }] }],
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    evaluationError: 'ClusterRoleBinding "crb": User subject "alice" cannot have a namespace: "x"',
  },
  {
    name: 'a subject of an unknown kind named like the user matches no one and is an evaluation error',
    ...everywhere([rule(['get'], [''], ['pods'])], [{ kind: 'Robot', name: 'alice' }]),
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    evaluationError: 'ClusterRoleBinding "crb": subject "alice" has an unsupported kind: "Robot"',
  },
  {
    name: 'a subject of an unknown kind named like one of the groups is an evaluation error',
    ...everywhere([rule(['get'], [''], ['pods'])], [{ kind: 'Team', name: 'devs' }]),
    request: get(bob, 'pods'),
    decision: 'NoOpinion',
    evaluationError: 'ClusterRoleBinding "crb": subject "devs" has an unsupported kind: "Team"',
  },
  {
    name: 'malformed subjects and missing roles are reported together, in visit order',
    roles: [{ kind: 'ClusterRole', name: 'cr', rules: [rule(['get'], [''], ['pods'])] }],
    bindings: [
      { kind: 'ClusterRoleBinding', name: 'a', role: 'ClusterRole/gone', subjects: [User('alice')] },
      { kind: 'ClusterRoleBinding', name: 'b', role: 'ClusterRole/cr', subjects: [{ ...User('alice'), namespace: 'x' }] },
    ],
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    evaluationError:
      '[clusterrole.rbac.authorization.plat.io "gone" not found, ClusterRoleBinding "b": User subject "alice" cannot have a namespace: "x"]',
  },
  {
    name: "a subject's apiGroup is not looked at (as upstream)",
    ...everywhere([rule(['get'], [''], ['pods'])], [{ kind: 'User', apiGroup: 'example.com', name: 'alice' }]),
    request: get(alice, 'pods'),
    decision: 'Allow',
  },
  // Unresolvable references.
  {
    name: 'a RoleBinding to a missing Role is an evaluation error',
    bindings: [{ kind: 'RoleBinding', name: 'rb', namespace: 'default', role: 'Role/missing', subjects: [User('alice')] }],
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    reason: 'RBAC: role.rbac.authorization.plat.io "missing" not found',
    evaluationError: 'role.rbac.authorization.plat.io "missing" not found',
  },
  {
    name: 'a ClusterRoleBinding to a missing ClusterRole is an evaluation error, named under the domain',
    domain: 'k8s.io',
    bindings: [{ kind: 'ClusterRoleBinding', name: 'crb', role: 'ClusterRole/gone', subjects: [User('alice')] }],
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    evaluationError: 'clusterrole.rbac.authorization.k8s.io "gone" not found',
  },
  {
    name: 'a ClusterRoleBinding to a Role finds none',
    roles: [{ kind: 'Role', name: 'r', namespace: 'default', rules: [rule(['get'], [''], ['pods'])] }],
    bindings: [{ kind: 'ClusterRoleBinding', name: 'crb', role: 'Role/r', subjects: [User('alice')] }],
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    evaluationError: 'role.rbac.authorization.plat.io "r" not found',
  },
  {
    name: 'an unsupported roleRef kind is an evaluation error',
    bindings: [{ kind: 'ClusterRoleBinding', name: 'crb', role: 'Policy/p', subjects: [User('alice')] }],
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    reason: 'RBAC: unsupported role reference kind: "Policy"',
    evaluationError: 'unsupported role reference kind: "Policy"',
  },
  {
    name: 'several errors are listed once each, cluster bindings first',
    bindings: [
      { kind: 'RoleBinding', name: 'a', namespace: 'default', role: 'Role/missing', subjects: [User('alice')] },
      { kind: 'RoleBinding', name: 'b', namespace: 'default', role: 'Role/missing', subjects: [User('alice')] },
      { kind: 'ClusterRoleBinding', name: 'z', role: 'ClusterRole/gone', subjects: [User('alice')] },
    ],
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    reason: 'RBAC: [clusterrole.rbac.authorization.plat.io "gone" not found, role.rbac.authorization.plat.io "missing" not found]',
    evaluationError: '[clusterrole.rbac.authorization.plat.io "gone" not found, role.rbac.authorization.plat.io "missing" not found]',
  },
  {
    name: 'an error does not prevent another binding from allowing',
    roles: [{ kind: 'Role', name: 'r', namespace: 'default', rules: [rule(['get'], [''], ['pods'])] }],
    bindings: [
      { kind: 'ClusterRoleBinding', name: 'broken', role: 'ClusterRole/gone', subjects: [User('alice')] },
      { kind: 'RoleBinding', name: 'rb', namespace: 'default', role: 'Role/r', subjects: [User('alice')] },
    ],
    request: get(alice, 'pods'),
    decision: 'Allow',
    reason: 'RBAC: allowed by RoleBinding "rb/default" of Role "r" to User "alice"',
  },
  {
    name: 'errors of bindings that do not apply to the user are not reported',
    bindings: [{ kind: 'ClusterRoleBinding', name: 'crb', role: 'ClusterRole/gone', subjects: [User('bob')] }],
    request: get(alice, 'pods'),
    decision: 'NoOpinion',
    reason: '',
  },
  // Which rule is reported.
  {
    name: 'ClusterRoleBindings are visited before RoleBindings, each in name order',
    roles: [
      { kind: 'ClusterRole', name: 'cr', rules: [rule(['get'], [''], ['pods'])] },
      { kind: 'Role', name: 'r', namespace: 'default', rules: [rule(['get'], [''], ['pods'])] },
    ],
    bindings: [
      { kind: 'RoleBinding', name: 'a', namespace: 'default', role: 'Role/r', subjects: [User('alice')] },
      { kind: 'ClusterRoleBinding', name: 'z', role: 'ClusterRole/cr', subjects: [Group('system:authenticated')] },
      { kind: 'ClusterRoleBinding', name: 'y', role: 'ClusterRole/cr', subjects: [User('alice')] },
    ],
    request: get(alice, 'pods'),
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "y" of ClusterRole "cr" to User "alice"',
  },
  {
    name: 'a wildcard rule visited first wins over an exact one visited later',
    roles: [
      { kind: 'ClusterRole', name: 'exact', rules: [rule(['get'], [''], ['pods'])] },
      { kind: 'ClusterRole', name: 'wild', rules: [rule(['*'], ['*'], ['*'])] },
    ],
    bindings: [
      { kind: 'ClusterRoleBinding', name: 'b-exact', role: 'ClusterRole/exact', subjects: [User('alice')] },
      { kind: 'ClusterRoleBinding', name: 'a-wild', role: 'ClusterRole/wild', subjects: [User('alice')] },
    ],
    request: get(alice, 'pods'),
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "a-wild" of ClusterRole "wild" to User "alice"',
  },
  {
    name: 'quotes in names are escaped as Go does',
    roles: [{ kind: 'ClusterRole', name: 'cr "x"', rules: [rule(['get'], [''], ['pods'])] }],
    bindings: [{ kind: 'ClusterRoleBinding', name: 'crb', role: 'ClusterRole/cr "x"', subjects: [User('alice')] }],
    request: get(alice, 'pods'),
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cr \\"x\\"" to User "alice"',
  },
  // Privileged users still go through RBAC here.
  {
    name: 'system:masters gets nothing from RBAC without a binding (the privileged-group authorizer allows it)',
    bindings: [],
    request: get(user('root', ['system:masters']), 'secrets'),
    decision: 'NoOpinion',
  },
];

function load(index: RbacIndex, testCase: Case): void {
  const group = `rbac.authorization.${testCase.domain ?? 'plat.io'}`;
  for (const role of testCase.roles ?? []) {
    index.upsert(role.kind, { metadata: { name: role.name, ...(role.namespace ? { namespace: role.namespace } : {}) }, rules: role.rules });
  }
  for (const binding of testCase.bindings) {
    const [kind = '', ...rest] = binding.role.split('/');
    index.upsert(binding.kind, {
      metadata: { name: binding.name, ...(binding.namespace ? { namespace: binding.namespace } : {}) },
      roleRef: { apiGroup: group, kind, name: rest.join('/') },
      subjects: binding.subjects,
    });
  }
}

for (const testCase of cases) {
  test(`authorize: ${testCase.name}`, () => {
    const index = new RbacIndex({ domain: testCase.domain ?? 'plat.io' });
    load(index, testCase);
    const result = authorize(index, testCase.request);
    assert.equal(result.decision, testCase.decision);
    if (testCase.reason !== undefined) assert.equal(result.reason, testCase.reason);
    else if (testCase.decision === 'Allow') assert.match(result.reason, /^RBAC: allowed by /);
    else if (testCase.evaluationError === undefined) assert.equal(result.reason, '');
    assert.equal(result.evaluationError, testCase.evaluationError);
    if (testCase.evaluationError !== undefined) assert.equal(result.reason, `RBAC: ${testCase.evaluationError}`);
  });
}

const privilegedCases: [string, UserInfo, 'Allow' | 'NoOpinion'][] = [
  ['a member of system:masters is allowed', user('root', ['system:authenticated', 'system:masters']), 'Allow'],
  ['anyone else has no opinion', user('alice', ['system:authenticated']), 'NoOpinion'],
  ['a user named system:masters is not a member', user('system:masters', []), 'NoOpinion'],
];
for (const [name, who, decision] of privilegedCases) {
  test(`privilegedGroupAuthorizer: ${name}`, () => {
    for (const request of [get(who, 'secrets'), nonResourceAttributes(who, 'get', '/metrics')]) {
      assert.deepEqual(privilegedGroupAuthorizer(request), { decision, reason: '' });
    }
  });
}

test('privilegedGroupAuthorizer: other privileged groups can be given', () => {
  assert.equal(privilegedGroupAuthorizer(get(user('n', ['system:nodes']), 'pods'), ['system:nodes']).decision, 'Allow');
});
