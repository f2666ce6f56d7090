import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authorize } from './authorize.js';
import { RbacIndex } from './rbac-index.js';
import { ruleAllows } from './rule-matching.js';
import { nonResourceAttributes, resourceAttributes, user } from './testing.js';
import type { AccessAttributes, PolicyRule, Subject } from '@plat/apimachinery';

const rbac = 'rbac.authorization.plat.io';
const alice = user('alice');
const getPods = (namespace = 'default'): AccessAttributes => resourceAttributes(alice, 'get', { resource: 'pods', namespace, name: 'p' });
const podReader: PolicyRule[] = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
const binding = (name: string, role: string, subjects: Subject[], namespace?: string) => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: rbac, kind: namespace ? 'Role' : 'ClusterRole', name: role },
  subjects,
});

test('RbacIndex: a decision follows the watch (upsert, replace, remove)', () => {
  const index = new RbacIndex();
  assert.equal(authorize(index, getPods()).decision, 'NoOpinion');

  index.upsert('ClusterRole', { metadata: { name: 'cr-read' }, rules: podReader });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr-read', [{ kind: 'User', name: 'alice' }]));
  assert.equal(authorize(index, getPods()).decision, 'Allow');

  // Replacing the subjects files the binding under the new ones only.
  index.upsert('ClusterRoleBinding', binding('crb', 'cr-read', [{ kind: 'User', name: 'bob' }]));
  assert.equal(authorize(index, getPods()).decision, 'NoOpinion');
  assert.equal(authorize(index, { ...getPods(), user: user('bob') }).decision, 'Allow');

  // Changing the role's rules takes effect for existing bindings.
  index.upsert('ClusterRole', { metadata: { name: 'cr-read' }, rules: [] });
  assert.equal(authorize(index, { ...getPods(), user: user('bob') }).decision, 'NoOpinion');

  // Removing the role turns the binding into an evaluation error.
  index.remove('ClusterRole', '', 'cr-read');
  assert.deepEqual(authorize(index, { ...getPods(), user: user('bob') }), {
    decision: 'NoOpinion',
    reason: 'RBAC: clusterrole.rbac.authorization.plat.io "cr-read" not found',
    evaluationError: 'clusterrole.rbac.authorization.plat.io "cr-read" not found',
  });

  index.remove('ClusterRoleBinding', '', 'crb');
  assert.deepEqual(authorize(index, { ...getPods(), user: user('bob') }), { decision: 'NoOpinion', reason: '' });
  // Removing what is not there does nothing.
  index.remove('RoleBinding', 'nowhere', 'nothing');
  index.remove('Role', 'nowhere', 'nothing');
});

test('RbacIndex: RoleBindings and Roles are kept per namespace', () => {
  const index = new RbacIndex();
  for (const namespace of ['a', 'b']) {
    index.upsert('Role', { metadata: { name: 'r', namespace }, rules: podReader });
    index.upsert('RoleBinding', binding('rb', 'r', [{ kind: 'User', name: 'alice' }], namespace));
  }
  index.remove('RoleBinding', 'a', 'rb');
  assert.equal(authorize(index, getPods('a')).decision, 'NoOpinion');
  assert.equal(authorize(index, getPods('b')).decision, 'Allow');
  index.remove('Role', 'b', 'r');
  assert.equal(authorize(index, getPods('b')).evaluationError, 'role.rbac.authorization.plat.io "r" not found');
  assert.deepEqual(
    index.list('RoleBinding').map((b) => b.metadata.namespace),
    ['b'],
  );
  assert.deepEqual(index.list('Role').map((r) => r.metadata.namespace), ['a']);
  index.clear();
  assert.deepEqual(index.list('Role'), []);
  assert.equal(authorize(index, getPods('b')).decision, 'NoOpinion');
});

test('RbacIndex: a binding naming the user twice is visited once', () => {
  const index = new RbacIndex();
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: [...podReader, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }] });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'system:authenticated' }]));
  assert.equal(index.rulesFor(alice, 'default').rules.length, 2);
});

test('RbacIndex: rulesFor lists cluster rules, then the namespace rules, and the errors', () => {
  const index = new RbacIndex();
  const list: PolicyRule = { verbs: ['list'], apiGroups: [''], resources: ['secrets'] };
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: podReader });
  index.upsert('Role', { metadata: { name: 'r', namespace: 'dev' }, rules: [list] });
  index.upsert('RoleBinding', binding('rb', 'r', [{ kind: 'User', name: 'alice' }], 'dev'));
  index.upsert('RoleBinding', binding('broken', 'missing', [{ kind: 'User', name: 'alice' }], 'dev'));
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'User', name: 'alice' }]));
  assert.deepEqual(index.rulesFor(alice, 'dev'), { rules: [...podReader, list], errors: ['role.rbac.authorization.plat.io "missing" not found'] });
  assert.deepEqual(index.rulesFor(alice, ''), { rules: podReader, errors: [] });
});

test('RbacIndex: visitRulesFor stops when the visitor says so', () => {
  const index = new RbacIndex();
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: [...podReader, ...podReader] });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'User', name: 'alice' }]));
  let visits = 0;
  index.visitRulesFor(alice, 'default', () => {
    visits++;
    return false;
  });
  assert.equal(visits, 1);
});

test('RbacIndex: roleReferenceRules resolves as upstream GetRoleReferenceRules', () => {
  const index = new RbacIndex({ domain: 'k8s.io' });
  index.upsert('Role', { metadata: { name: 'r', namespace: 'dev' }, rules: podReader });
  assert.deepEqual(index.roleReferenceRules({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, 'dev'), { rules: podReader });
  assert.deepEqual(index.roleReferenceRules({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, 'prod'), {
    error: 'role.rbac.authorization.k8s.io "r" not found',
  });
  assert.deepEqual(index.roleReferenceRules({ apiGroup: '', kind: 'Thing', name: 'r' }, 'dev'), { error: 'unsupported role reference kind: "Thing"' });
});

test('RbacIndex: groups in another order, and a full cache, give the same decisions', () => {
  const index = new RbacIndex({ decisionCacheSize: 2 });
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: podReader });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'Group', name: 'g1' }]));
  for (let i = 0; i < 10; i++) {
    const groups = i % 2 ? ['g1', `x${i}`] : [`x${i}`, 'g1'];
    assert.equal(authorize(index, { ...getPods(), user: user(`u${i}`, groups) }).decision, 'Allow');
    assert.equal(authorize(index, { ...getPods(), user: user(`u${i}`, [`x${i}`]) }).decision, 'NoOpinion');
  }
});

test('RbacIndex: names that look alike do not share cached decisions', () => {
  const index = new RbacIndex();
  index.upsert('ClusterRole', { metadata: { name: 'cr' }, rules: podReader });
  index.upsert('ClusterRoleBinding', binding('crb', 'cr', [{ kind: 'Group', name: 'b|c' }]));
  assert.equal(authorize(index, { ...getPods(), user: user('a', ['b|c']) }).decision, 'Allow');
  assert.equal(authorize(index, { ...getPods(), user: user('a', ['b', 'c']) }).decision, 'NoOpinion');
  assert.equal(authorize(index, { ...getPods(), user: user('a|b', ['c']) }).decision, 'NoOpinion');
});

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Upstream's rule matching (RuleAllows and the rbac/v1 helpers), written out again for this test:
 * the oracle of the randomized check below, held to the table after it.
 */
function oracleAllows(request: AccessAttributes, rule: PolicyRule): boolean {
  const listed = (values: readonly string[] | undefined, value: string): boolean => !!values && (values.includes('*') || values.includes(value));
  if (!listed(rule.verbs, request.verb)) return false;
  if (!request.isResourceRequest) {
    return (rule.nonResourceURLs ?? []).some((url) => {
      if (url === '*' || url === request.path) return true;
      return url.endsWith('*') && request.path.startsWith(url.replace(/\*+$/, ''));
    });
  }
  if (!listed(rule.apiGroups, request.apiGroup)) return false;
  const resources = rule.resources ?? [];
  const asked = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  const resourceOk = resources.includes('*') || resources.includes(asked) || (!!request.subresource && resources.includes(`*/${request.subresource}`));
  if (!resourceOk) return false;
  return !rule.resourceNames?.length || rule.resourceNames.includes(request.name);
}

const someone = user('someone');
/** [what, rule, request, allowed]: upstream's documented matching, independent of both implementations. */
const ruleTable: [string, PolicyRule, AccessAttributes, boolean][] = [
  ['verb and resource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, resourceAttributes(someone, 'get', { resource: 'pods' }), true],
  ['another verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, resourceAttributes(someone, 'list', { resource: 'pods' }), false],
  ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, resourceAttributes(someone, 'deletecollection', { resource: 'pods' }), true],
  ['another group', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, resourceAttributes(someone, 'get', { group: 'apps', resource: 'pods' }), false],
  ['group *', { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, resourceAttributes(someone, 'get', { group: 'apps', resource: 'deployments' }), true],
  ['no apiGroups: no resource', { verbs: ['get'], resources: ['pods'] }, resourceAttributes(someone, 'get', { resource: 'pods' }), false],
  ['a resource is not its subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, resourceAttributes(someone, 'get', { resource: 'pods', subresource: 'log' }), false],
  ['a subresource is not its resource', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, resourceAttributes(someone, 'get', { resource: 'pods' }), false],
  ['resource/subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, resourceAttributes(someone, 'get', { resource: 'pods', subresource: 'log' }), true],
  ['*/subresource', { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }, resourceAttributes(someone, 'get', { group: 'apps', resource: 'deployments', subresource: 'scale' }), true],
  ['*/subresource is not the resource', { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }, resourceAttributes(someone, 'get', { group: 'apps', resource: 'deployments' }), false],
  ['*/subresource is that subresource only', { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }, resourceAttributes(someone, 'get', { group: 'apps', resource: 'deployments', subresource: 'status' }), false],
  ['resource * covers subresources', { verbs: ['get'], apiGroups: [''], resources: ['*'] }, resourceAttributes(someone, 'get', { resource: 'pods', subresource: 'log' }), true],
  ['resourceNames: the named object', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, resourceAttributes(someone, 'get', { resource: 'pods', name: 'a' }), true],
  ['resourceNames: another object', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, resourceAttributes(someone, 'get', { resource: 'pods', name: 'b' }), false],
  ['resourceNames: no name (list, create)', { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, resourceAttributes(someone, 'list', { resource: 'pods' }), false],
  ['empty resourceNames: every name', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }, resourceAttributes(someone, 'get', { resource: 'pods', name: 'b' }), true],
  ['a URL', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, nonResourceAttributes(someone, 'get', '/healthz'), true],
  ['a URL is not its children', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, nonResourceAttributes(someone, 'get', '/healthz/etcd'), false],
  ['URL/*: the children', { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, nonResourceAttributes(someone, 'get', '/healthz/etcd'), true],
  ['URL/*: not the URL itself', { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, nonResourceAttributes(someone, 'get', '/healthz'), false],
  ['a trailing * is a plain prefix', { verbs: ['get'], nonResourceURLs: ['/api*'] }, nonResourceAttributes(someone, 'get', '/apis/apps'), true],
  ['URL *', { verbs: ['get'], nonResourceURLs: ['*'] }, nonResourceAttributes(someone, 'get', '/anything'), true],
  ['a URL rule\u2019s verb', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, nonResourceAttributes(someone, 'post', '/healthz'), false],
  ['a resource rule allows no URL', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, nonResourceAttributes(someone, 'get', '/healthz'), false],
  ['a URL rule allows no resource', { verbs: ['*'], nonResourceURLs: ['*'] }, resourceAttributes(someone, 'get', { resource: 'pods' }), false],
];

test('rule matching: the randomized check\u2019s oracle and ruleAllows both follow the table', () => {
  for (const [what, rule, request, allowed] of ruleTable) {
    assert.equal(oracleAllows(request, rule), allowed, `oracle: ${what}`);
    assert.equal(ruleAllows(request, rule), allowed, `ruleAllows: ${what}`);
  }
});

interface Binding {
  metadata: { name: string; namespace?: string };
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects: Subject[];
}

/**
 * Upstream's decision, written out over the test's own copy of the objects: the first rule that
 * allows, ClusterRoleBindings then the namespace's RoleBindings, each kind in name order, through
 * the binding's first subject that names the user; its reason as upstream's authorizer gives it.
 */
function oracleReason(
  request: AccessAttributes,
  objects: { clusterRoles: Map<string, PolicyRule[]>; roles: Map<string, PolicyRule[]>; clusterRoleBindings: Binding[]; roleBindings: Binding[] },
): string | undefined {
  const byName = (a: Binding, b: Binding): number => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);
  const visits: [Binding, string][] = [
    ...[...objects.clusterRoleBindings].sort(byName).map((b): [Binding, string] => [b, '']),
    ...(request.namespace ? objects.roleBindings.filter((b) => b.metadata.namespace === request.namespace).sort(byName).map((b): [Binding, string] => [b, request.namespace]) : []),
  ];
  for (const [binding, namespace] of visits) {
    const subject = binding.subjects.find((s) => {
      if (s.kind === 'User') return s.name === request.user.name;
      if (s.kind === 'Group') return request.user.groups.includes(s.name);
      const saNamespace = s.namespace || namespace;
      return saNamespace !== '' && request.user.name === `system:serviceaccount:${saNamespace}:${s.name}`;
    });
    if (!subject) continue;
    const rules = binding.roleRef.kind === 'Role' ? objects.roles.get(`${namespace}/${binding.roleRef.name}`) : objects.clusterRoles.get(binding.roleRef.name);
    if (!rules?.some((rule) => oracleAllows(request, rule))) continue;
    const bindingText = namespace ? `RoleBinding "${binding.metadata.name}/${namespace}"` : `ClusterRoleBinding "${binding.metadata.name}"`;
    const subjectText = subject.kind === 'ServiceAccount' ? `ServiceAccount "${subject.name}/${subject.namespace || namespace}"` : `${subject.kind} "${subject.name}"`;
    return `RBAC: allowed by ${bindingText} of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${subjectText}`;
  }
  return undefined;
}

test('RbacIndex: compiled decisions equal the first allowing rule found by a plain model of upstream\u2019s', () => {
  const next = random(42);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const some = <T>(values: readonly T[], max = 3): T[] => Array.from({ length: 1 + Math.floor(next() * max) }, () => pick(values));
  const verbs = ['get', 'list', 'delete', '*'];
  const groups = ['', 'apps', '*'];
  const resources = ['pods', 'pods/log', 'deployments', 'deployments/scale', '*', '*/scale', '*/log'];
  const names = ['a', 'b'];
  const paths = ['/healthz', '/healthz/*', '/api*', '/apis/*', '*', '/version'];
  const namespaces = ['n1', 'n2'];
  const users = [user('u1', ['g1']), user('u2', ['g1', 'g2']), user('system:serviceaccount:n1:sa', ['g2'])];
  const subjects: Subject[] = [
    { kind: 'User', name: 'u1' },
    { kind: 'User', name: 'u2' },
    { kind: 'Group', name: 'g1' },
    { kind: 'Group', name: 'g2' },
    { kind: 'ServiceAccount', name: 'sa', namespace: 'n1' },
    { kind: 'ServiceAccount', name: 'sa' },
  ];
  const randomRule = (): PolicyRule => {
    if (next() < 0.2) return { verbs: some(verbs), nonResourceURLs: some(paths) };
    const r: PolicyRule = { verbs: some(verbs), apiGroups: some(groups, 2), resources: some(resources) };
    if (next() < 0.3) r.resourceNames = some(names, 1);
    return r;
  };

  let allowedSeen = 0;
  for (let round = 0; round < 20; round++) {
    const index = new RbacIndex();
    const objects = { clusterRoles: new Map<string, PolicyRule[]>(), roles: new Map<string, PolicyRule[]>(), clusterRoleBindings: [] as Binding[], roleBindings: [] as Binding[] };
    for (let i = 0; i < 6; i++) {
      const rules = [randomRule(), randomRule()];
      objects.clusterRoles.set(`cr${i}`, rules);
      index.upsert('ClusterRole', { metadata: { name: `cr${i}` }, rules });
    }
    for (const namespace of namespaces) {
      for (let i = 0; i < 3; i++) {
        const rules = [randomRule()];
        objects.roles.set(`${namespace}/r${i}`, rules);
        index.upsert('Role', { metadata: { name: `r${i}`, namespace }, rules });
      }
    }
    for (let i = 0; i < 6; i++) {
      const roleRef = { apiGroup: rbac, kind: 'ClusterRole', name: `cr${Math.floor(next() * 7)}` };
      if (next() < 0.5) {
        const crb: Binding = { metadata: { name: `crb${i}` }, roleRef, subjects: some(subjects, 2) };
        objects.clusterRoleBindings.push(crb);
        index.upsert('ClusterRoleBinding', crb);
      }
      const namespace = pick(namespaces);
      const kind = next() < 0.5 ? 'Role' : 'ClusterRole';
      const rb: Binding = {
        metadata: { name: `rb${i}`, namespace },
        roleRef: { apiGroup: rbac, kind, name: kind === 'Role' ? `r${Math.floor(next() * 4)}` : `cr${Math.floor(next() * 6)}` },
        subjects: some(subjects, 2),
      };
      objects.roleBindings.push(rb);
      index.upsert('RoleBinding', rb);
    }
    for (let i = 0; i < 200; i++) {
      const who = pick(users);
      let request: AccessAttributes;
      if (next() < 0.25) {
        request = nonResourceAttributes(who, pick(['get', 'post', '*']), pick(['/healthz', '/healthz/etcd', '/apis', '/apis/apps', '/version', '/api']));
      } else {
        const [resource = '', subresource = ''] = pick(['pods', 'pods/log', 'deployments/scale', 'deployments', 'secrets', '*']).split('/');
        request = resourceAttributes(who, pick(verbs), {
          group: pick(['', 'apps', 'batch']),
          resource,
          subresource,
          name: pick(['', 'a', 'b']),
          namespace: pick(['', ...namespaces]),
        });
      }
      const expected = oracleReason(request, objects);
      if (expected) allowedSeen++;
      const result = authorize(index, request);
      assert.equal(result.decision, expected ? 'Allow' : 'NoOpinion', JSON.stringify(request));
      if (expected) assert.equal(result.reason, expected, JSON.stringify(request));
    }
  }
  // Both answers occur often enough for the comparison to mean something.
  assert.ok(allowedSeen > 200 && allowedSeen < 3800, `${allowedSeen} of 4000 allowed`);
});
