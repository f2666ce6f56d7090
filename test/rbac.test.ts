// RBAC over HTTP: a table of (subject, rules, bindings, request) -> allowed or denied,
// 401 and 403 on every verb, escalation prevention, and the access reviews, against one replica.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startApiserver, type ApiserverProcess, type Response } from './support/apiserver-process.js';
import { authFiles, authRequest, messageOf, type AuthFiles, type AuthRequest } from './support/auth.js';

const DOMAIN = 'plat.io';
const RBAC = `rbac.authorization.${DOMAIN}`;
const R = `/apis/${RBAC}/v1`;
const AZ = `/apis/authorization.${DOMAIN}/v1`;
const NS = 'tbl';
const OTHER = 'tbl-x';

interface Json {
  [field: string]: any;
}

type Rule = { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
type Subject = { kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string };

const role = (name: string, rules: Rule[], namespace = NS): Json => ({ metadata: { name, namespace }, rules });
const clusterRole = (name: string, rules: Rule[]): Json => ({ metadata: { name }, rules });
const ref = (kind: 'Role' | 'ClusterRole', name: string): Json => ({ apiGroup: RBAC, kind, name });
const user = (name: string): Subject => ({ kind: 'User', name });
const binding = (name: string, roleRef: Json, subjects: Subject[], namespace = NS): Json => ({ metadata: { name, namespace }, roleRef, subjects });
const clusterBinding = (name: string, roleRef: Json, subjects: Subject[]): Json => ({ metadata: { name }, roleRef, subjects });

/** The RBAC objects of the table, created in this order. */
const roles: Json[] = [
  role('sa-get', [{ verbs: ['get'], apiGroups: [''], resources: ['serviceaccounts'] }]),
  role('star-verbs', [{ verbs: ['*'], apiGroups: [''], resources: ['serviceaccounts'] }]),
  role('named', [{ verbs: ['get'], apiGroups: [''], resources: ['serviceaccounts'], resourceNames: ['named'] }]),
  role('watch-roles', [{ verbs: ['watch'], apiGroups: [RBAC], resources: ['roles'] }]),
];
const clusterRoles: Json[] = [
  clusterRole('t-list-sa', [{ verbs: ['list'], apiGroups: [''], resources: ['serviceaccounts'] }]),
  clusterRole('t-star-groups', [{ verbs: ['get'], apiGroups: ['*'], resources: ['leases'] }]),
  clusterRole('t-star-resources', [{ verbs: ['get'], apiGroups: [''], resources: ['*'] }]),
  clusterRole('t-ns-status', [{ verbs: ['get'], apiGroups: [''], resources: ['namespaces/status'] }]),
  clusterRole('t-any-status', [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }]),
  clusterRole('t-urls', [{ verbs: ['get'], nonResourceURLs: ['/metrics', '/logs/*'] }]),
  clusterRole('t-two-groups', [{ verbs: ['get'], apiGroups: ['', `coordination.${DOMAIN}`], resources: ['serviceaccounts', 'leases'] }]),
];
const roleBindings: Json[] = [
  binding('u-a', ref('Role', 'sa-get'), [user('u-a')]),
  binding('g-b', ref('Role', 'sa-get'), [{ kind: 'Group', name: 'g-b' }]),
  // A service account subject without a namespace is one of the binding's namespace.
  binding('sa-c', ref('Role', 'sa-get'), [{ kind: 'ServiceAccount', name: 'robot' }]),
  binding('u-e', ref('ClusterRole', 't-list-sa'), [user('u-e')]),
  binding('u-f', ref('Role', 'star-verbs'), [user('u-f')]),
  binding('u-g', ref('ClusterRole', 't-star-groups'), [user('u-g')]),
  binding('u-h', ref('ClusterRole', 't-star-resources'), [user('u-h')]),
  binding('u-j', ref('Role', 'named'), [user('u-j')]),
  // Non-resource URLs are granted only through a ClusterRoleBinding.
  binding('u-l', ref('ClusterRole', 't-urls'), [user('u-l')]),
  binding('u-m', ref('Role', 'missing'), [user('u-m')]),
  binding('u-n', ref('Role', 'watch-roles'), [user('u-n')]),
  binding('u-o', ref('ClusterRole', 't-two-groups'), [user('u-o')]),
];
const clusterRoleBindings: Json[] = [
  clusterBinding('t-u-d', ref('ClusterRole', 't-list-sa'), [user('u-d')]),
  clusterBinding('t-u-i', ref('ClusterRole', 't-ns-status'), [user('u-i')]),
  clusterBinding('t-u-i2', ref('ClusterRole', 't-any-status'), [user('u-i2')]),
  clusterBinding('t-u-k', ref('ClusterRole', 't-urls'), [user('u-k')]),
  // Stored (validation, as upstream's, allows it), but a User subject with a namespace grants nothing.
  clusterBinding('t-u-p', ref('ClusterRole', 't-list-sa'), [{ kind: 'User', name: 'u-p', namespace: 'x' }]),
];

interface Case {
  name: string;
  /** Impersonated by the admin; `anonymous` sends no credentials at all. */
  as: { user: string; groups?: string[] } | 'anonymous';
  method?: string;
  path: string;
  allowed: boolean;
  /**
   * Allowed: the exact status the request then gets, so that a 500 is no pass. The objects read
   * exist (`objects`); a 404 is a path or an object that is not there, past the authorizer.
   */
  status?: number;
  /** Part of the 403 message. */
  message?: string;
}

const sa = (ns: string, name = 'x'): string => `/api/v1/namespaces/${ns}/serviceaccounts${name ? `/${name}` : ''}`;
const lease = (ns: string): string => `/apis/coordination.${DOMAIN}/v1/namespaces/${ns}/leases/x`;

/** The objects the allowed cases read or delete, so that each answers a success of its own. */
const objects: [string, Json][] = [
  [sa(NS, ''), { metadata: { name: 'x' } }],
  [sa(NS, ''), { metadata: { name: 'named' } }],
  [sa(NS, ''), { metadata: { name: 'doomed' } }],
  [sa(NS, ''), { metadata: { name: 'doomed-too', labels: { doomed: 'yes' } } }],
  [`/apis/coordination.${DOMAIN}/v1/namespaces/${NS}/leases`, { metadata: { name: 'x' }, spec: {} }],
  [`/api/v1/namespaces/${NS}/limitranges`, { metadata: { name: 'x' }, spec: { limits: [{ type: 'Pod', max: { cpu: '1' } }] } }],
];

const table: Case[] = [
  { name: 'a Role grants its verb on its resource in its namespace', as: { user: 'u-a' }, path: sa(NS), allowed: true, status: 200 },
  { name: 'another verb is refused', as: { user: 'u-a' }, path: sa(NS, ''), allowed: false },
  { name: 'delete is a verb of its own', as: { user: 'u-a' }, method: 'DELETE', path: sa(NS), allowed: false },
  { name: 'a RoleBinding is effective in its own namespace only', as: { user: 'u-a' }, path: sa(OTHER), allowed: false },
  { name: 'a Group subject applies to members', as: { user: 'u-b', groups: ['g-b'] }, path: sa(NS), allowed: true, status: 200 },
  { name: 'a Group subject does not apply to others', as: { user: 'u-b' }, path: sa(NS), allowed: false },
  { name: 'a ServiceAccount subject defaults to the binding namespace', as: { user: `system:serviceaccount:${NS}:robot` }, path: sa(NS), allowed: true, status: 200 },
  { name: 'a ServiceAccount of another namespace is another user', as: { user: `system:serviceaccount:${OTHER}:robot` }, path: sa(NS), allowed: false },
  { name: 'a ClusterRoleBinding applies in every namespace', as: { user: 'u-d' }, path: sa(OTHER, ''), allowed: true, status: 200 },
  { name: 'a ClusterRoleBinding applies across namespaces', as: { user: 'u-d' }, path: '/api/v1/serviceaccounts', allowed: true, status: 200 },
  { name: 'a RoleBinding to a ClusterRole grants in its namespace', as: { user: 'u-e' }, path: sa(NS, ''), allowed: true, status: 200 },
  { name: 'a RoleBinding to a ClusterRole grants nothing elsewhere', as: { user: 'u-e' }, path: sa(OTHER, ''), allowed: false },
  { name: 'a RoleBinding to a ClusterRole grants nothing across namespaces', as: { user: 'u-e' }, path: '/api/v1/serviceaccounts', allowed: false },
  { name: 'verb * allows delete', as: { user: 'u-f' }, method: 'DELETE', path: sa(NS, 'doomed'), allowed: true, status: 200 },
  { name: 'verb * allows deletecollection', as: { user: 'u-f' }, method: 'DELETE', path: `${sa(NS, '')}?labelSelector=doomed%3Dyes`, allowed: true, status: 200 },
  { name: 'verb * is limited to the rule resources', as: { user: 'u-f' }, path: `/api/v1/namespaces/${NS}/limitranges/x`, allowed: false },
  { name: 'apiGroups * matches a named group', as: { user: 'u-g' }, path: lease(NS), allowed: true, status: 200 },
  { name: 'apiGroups * is limited to the rule resources', as: { user: 'u-g' }, path: sa(NS), allowed: false },
  { name: 'resources * matches any resource of the group', as: { user: 'u-h' }, path: `/api/v1/namespaces/${NS}/limitranges/x`, allowed: true, status: 200 },
  { name: 'resources * is limited to the rule groups', as: { user: 'u-h' }, path: lease(NS), allowed: false },
  { name: 'resource/subresource allows the subresource', as: { user: 'u-i' }, path: `/api/v1/namespaces/${NS}/status`, allowed: true, status: 200 },
  { name: 'resource/subresource does not allow the resource', as: { user: 'u-i' }, path: `/api/v1/namespaces/${NS}`, allowed: false },
  { name: '*/subresource allows the subresource of any resource', as: { user: 'u-i2' }, path: `/api/v1/namespaces/${NS}/status`, allowed: true, status: 200 },
  { name: '*/subresource does not allow the resource', as: { user: 'u-i2' }, path: `/api/v1/namespaces/${NS}`, allowed: false },
  { name: 'resourceNames allow the named object', as: { user: 'u-j' }, path: sa(NS, 'named'), allowed: true, status: 200 },
  { name: 'resourceNames refuse another object', as: { user: 'u-j' }, path: sa(NS, 'other'), allowed: false },
  { name: 'resourceNames refuse a list', as: { user: 'u-j' }, path: sa(NS, ''), allowed: false },
  { name: 'a nonResourceURL allows its path', as: { user: 'u-k' }, path: '/metrics', allowed: true, status: 200 },
  { name: 'a trailing * allows what is under the prefix', as: { user: 'u-k' }, path: '/logs/a/b', allowed: true, status: 404 },
  { name: 'a trailing * does not allow the prefix itself', as: { user: 'u-k' }, path: '/logs', allowed: false },
  { name: 'a nonResourceURL allows its verb only', as: { user: 'u-k' }, method: 'POST', path: '/metrics', allowed: false },
  { name: 'nonResourceURLs through a RoleBinding are not effective', as: { user: 'u-l' }, path: '/metrics', allowed: false },
  {
    name: 'an unresolvable roleRef is reported, not a crash',
    as: { user: 'u-m' },
    path: sa(NS),
    allowed: false,
    message: `serviceaccounts "x" is forbidden: User "u-m" cannot get resource "serviceaccounts" in API group "" in the namespace "${NS}": RBAC: role.${RBAC} "missing" not found`,
  },
  {
    name: 'a User subject with a namespace grants nothing, and says why',
    as: { user: 'u-p' },
    path: sa(OTHER, ''),
    allowed: false,
    message: `serviceaccounts is forbidden: User "u-p" cannot list resource "serviceaccounts" in API group "" in the namespace "${OTHER}": RBAC: ClusterRoleBinding "t-u-p": User subject "u-p" cannot have a namespace: "x"`,
  },
  { name: 'the watch verb allows ?watch', as: { user: 'u-n' }, path: `${R}/namespaces/${NS}/roles?watch=1&timeoutSeconds=1`, allowed: true, status: 200 },
  { name: 'the watch verb does not allow list', as: { user: 'u-n' }, path: `${R}/namespaces/${NS}/roles`, allowed: false },
  { name: 'several groups allow any listed resource in any of them (core)', as: { user: 'u-o' }, path: `/api/v1/namespaces/${NS}/leases/x`, allowed: true, status: 404 },
  { name: 'several groups allow any listed resource in any of them (named)', as: { user: 'u-o' }, path: `/apis/coordination.${DOMAIN}/v1/namespaces/${NS}/serviceaccounts/x`, allowed: true, status: 404 },
  { name: 'system:masters may do anything', as: { user: 'root', groups: ['system:masters'] }, method: 'DELETE', path: '/api/v1/namespaces/nothing-here', allowed: true, status: 404 },
  { name: 'nobody else may', as: { user: 'root', groups: ['admins'] }, method: 'DELETE', path: '/api/v1/namespaces/nothing-here', allowed: false },
  { name: 'an authenticated user reads discovery', as: { user: 'u-none' }, path: '/apis', allowed: true, status: 200 },
  { name: 'an authenticated user may review their own access', as: { user: 'u-none' }, method: 'POST', path: `${AZ}/selfsubjectaccessreviews`, allowed: true, status: 201 },
  { name: 'an authenticated user may not read the metrics', as: { user: 'u-none' }, path: '/metrics', allowed: false },
  { name: 'anonymous health checks are public', as: 'anonymous', path: '/healthz', allowed: true, status: 200 },
  { name: 'anonymous readiness is public', as: 'anonymous', path: '/readyz', allowed: true, status: 200 },
  { name: 'anonymous version is public', as: 'anonymous', path: '/version', allowed: true, status: 200 },
  { name: 'anonymous discovery is not', as: 'anonymous', path: '/apis', allowed: false, message: 'forbidden: User "system:anonymous" cannot get path "/apis"' },
];

describe('RBAC over HTTP', () => {
  let server: ApiserverProcess;
  let files: AuthFiles;
  const admin = (path: string, options: AuthRequest = {}): Promise<Response> => authRequest(server, path, { token: files.admin, ...options });
  const json = (response: Response): Json => JSON.parse(response.body) as Json;
  const create = async (path: string, body: Json): Promise<void> => {
    const created = await admin(path, { method: 'POST', body });
    assert.equal(created.status, 201, `${path}: ${created.body}`);
  };
  /** A request by the admin acting as someone else. */
  const as = (who: { user: string; groups?: string[] }, path: string, options: AuthRequest = {}): Promise<Response> =>
    admin(path, { ...options, headers: { 'Impersonate-User': who.user, ...(who.groups && { 'Impersonate-Group': who.groups }), ...options.headers } });
  /** Waits until the grant `probe` depends on has reached the authorizer. */
  const granted = (what: string, probe: () => Promise<Response>): Promise<void> =>
    eventually(what, async () => (await probe()).status !== 403, 5000);

  before(async () => {
    files = await authFiles([
      { name: 'alice', token: 'alice-token', groups: ['devs'] },
      { name: 'esc', token: 'esc-token' },
    ]);
    server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${files.tokenFile}`]);
    await eventually('readyz', async () => (await server.request('/readyz')).status === 200);
    for (const name of [NS, OTHER, 'esc']) await create('/api/v1/namespaces', { metadata: { name } });
    for (const object of roles) await create(`${R}/namespaces/${NS}/roles`, object);
    for (const object of clusterRoles) await create(`${R}/clusterroles`, object);
    for (const object of roleBindings) await create(`${R}/namespaces/${NS}/rolebindings`, object);
    for (const object of clusterRoleBindings) await create(`${R}/clusterrolebindings`, object);
    for (const [path, object] of objects) await create(path, object);
    // Each kind is watched on its own, in order: the last object of each kind seen means all are.
    await granted('the last Role and RoleBinding', () => as({ user: 'u-n' }, `${R}/namespaces/${NS}/roles?watch=1&timeoutSeconds=1`));
    await granted('the last ClusterRole', () => as({ user: 'u-o' }, lease(NS).replace(`apis/coordination.${DOMAIN}/v1`, 'api/v1')));
    await granted('the last ClusterRoleBinding', () => as({ user: 'u-k' }, '/metrics'));
  });
  after(async () => {
    await server?.stop();
    await files?.cleanup();
  });

  describe('decisions', () => {
    for (const c of table) {
      it(`${c.allowed ? 'allows' : 'refuses'}: ${c.name}`, async () => {
        const options = { method: c.method ?? 'GET', ...(c.method === 'POST' && { body: { spec: { nonResourceAttributes: { path: '/', verb: 'get' } } } }) };
        const response = c.as === 'anonymous' ? await authRequest(server, c.path, options) : await as(c.as, c.path, options);
        if (c.allowed) {
          assert.equal(response.status, c.status, response.body);
        } else {
          assert.equal(response.status, 403, response.body);
          assert.equal(json(response).reason, 'Forbidden');
          if (c.message) assert.equal(messageOf(response), c.message);
        }
      });
    }
  });

  describe('every verb', () => {
    const verbs: { verb: string; method: string; path: string; body?: Json; message: string }[] = [
      { verb: 'get', method: 'GET', path: sa(NS, 'robot'), message: `serviceaccounts "robot" is forbidden: User "alice" cannot get resource "serviceaccounts" in API group "" in the namespace "${NS}"` },
      { verb: 'list', method: 'GET', path: sa(NS, ''), message: `serviceaccounts is forbidden: User "alice" cannot list resource "serviceaccounts" in API group "" in the namespace "${NS}"` },
      { verb: 'watch', method: 'GET', path: `${sa(NS, '')}?watch=1`, message: `serviceaccounts is forbidden: User "alice" cannot watch resource "serviceaccounts" in API group "" in the namespace "${NS}"` },
      { verb: 'create', method: 'POST', path: sa(NS, ''), body: { metadata: { name: 'robot' } }, message: `serviceaccounts is forbidden: User "alice" cannot create resource "serviceaccounts" in API group "" in the namespace "${NS}"` },
      { verb: 'update', method: 'PUT', path: sa(NS, 'robot'), body: { metadata: { name: 'robot' } }, message: `serviceaccounts "robot" is forbidden: User "alice" cannot update resource "serviceaccounts" in API group "" in the namespace "${NS}"` },
      { verb: 'patch', method: 'PATCH', path: sa(NS, 'robot'), body: {}, message: `serviceaccounts "robot" is forbidden: User "alice" cannot patch resource "serviceaccounts" in API group "" in the namespace "${NS}"` },
      { verb: 'delete', method: 'DELETE', path: sa(NS, 'robot'), message: `serviceaccounts "robot" is forbidden: User "alice" cannot delete resource "serviceaccounts" in API group "" in the namespace "${NS}"` },
      { verb: 'deletecollection', method: 'DELETE', path: sa(NS, ''), message: `serviceaccounts is forbidden: User "alice" cannot deletecollection resource "serviceaccounts" in API group "" in the namespace "${NS}"` },
    ];
    for (const { verb, method, path, body, message } of verbs) {
      it(`${verb}: 401 with a bad token, 403 in upstream's words without a grant`, async () => {
        const headers = method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : undefined;
        const unauthorized = await authRequest(server, path, { method, token: 'not-a-token', ...(body && { body }), ...(headers && { headers }) });
        assert.equal(unauthorized.status, 401, unauthorized.body);
        assert.deepEqual(json(unauthorized), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
        const forbidden = await authRequest(server, path, { method, token: 'alice-token', ...(body && { body }), ...(headers && { headers }) });
        assert.equal(forbidden.status, 403, forbidden.body);
        assert.equal(messageOf(forbidden), message);
        assert.equal(json(forbidden).details.kind, 'serviceaccounts');
      });
    }
  });

  describe('escalation prevention', () => {
    const escRoles = `${R}/namespaces/esc/roles`;
    const escBindings = `${R}/namespaces/esc/rolebindings`;
    const byEsc = (path: string, options: AuthRequest = {}): Promise<Response> => authRequest(server, path, { token: 'esc-token', ...options });
    const nodesRule: Rule = { verbs: ['get'], apiGroups: [''], resources: ['nodes'] };
    const notHeld = 'is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}';

    before(async () => {
      // esc administers its namespace: admin lets it manage roles and bindings there.
      await create(escBindings, binding('esc-admin', ref('ClusterRole', 'admin'), [user('esc')], 'esc'));
      await granted('esc as admin', () => byEsc(escRoles));
    });

    it('a Role within the creator\u2019s own permissions is created', async () => {
      const created = await byEsc(escRoles, { method: 'POST', body: role('mine', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['serviceaccounts'] }], 'esc') });
      assert.equal(created.status, 201, created.body);
    });

    it('a Role granting more is refused, dry run included', async () => {
      for (const query of ['', '?dryRun=All']) {
        const refused = await byEsc(`${escRoles}${query}`, { method: 'POST', body: role('more', [nodesRule], 'esc') });
        assert.equal(refused.status, 403, refused.body);
        assert.equal(
          messageOf(refused),
          `roles.${RBAC} "more" is forbidden: user "esc" (groups=["system:authenticated"]) ${notHeld}`,
        );
      }
    });

    it('an update adding permissions is refused', async () => {
      const current = json(await byEsc(`${escRoles}/mine`));
      current.rules.push(nodesRule);
      const refused = await byEsc(`${escRoles}/mine`, { method: 'PUT', body: current });
      assert.equal(refused.status, 403, refused.body);
      assert.match(messageOf(refused), /is attempting to grant RBAC permissions not currently held/);
    });

    it('a binding to a role whose permissions the creator holds is created', async () => {
      const created = await byEsc(escBindings, { method: 'POST', body: binding('viewer', ref('ClusterRole', 'view'), [user('someone')], 'esc') });
      assert.equal(created.status, 201, created.body);
    });

    it('a binding to a role with more permissions is refused', async () => {
      const refused = await byEsc(escBindings, { method: 'POST', body: binding('root', ref('ClusterRole', 'cluster-admin'), [user('esc')], 'esc') });
      assert.equal(refused.status, 403, refused.body);
      assert.match(messageOf(refused), new RegExp(`^rolebindings.${RBAC.replaceAll('.', '\\.')} "root" is forbidden: user "esc" .* is attempting to grant RBAC permissions not currently held:\\n\\{APIGroups:\\["\\*"\\], Resources:\\["\\*"\\], Verbs:\\["\\*"\\]\\}`));
    });

    it('a binding to a missing role is a 404 without the bind verb', async () => {
      const missing = await byEsc(escBindings, { method: 'POST', body: binding('ghost', ref('ClusterRole', 'ghost'), [user('esc')], 'esc') });
      assert.equal(missing.status, 404, missing.body);
      assert.equal(messageOf(missing), `clusterrole.${RBAC} "ghost" not found`);
    });

    it('the bind verb on the role allows the binding', async () => {
      await create(`${R}/clusterroles`, clusterRole('bind-cluster-admin', [{ verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['cluster-admin'] }]));
      await create(escBindings, binding('esc-bind', ref('ClusterRole', 'bind-cluster-admin'), [user('esc')], 'esc'));
      const body = binding('root', ref('ClusterRole', 'cluster-admin'), [user('someone')], 'esc');
      await eventually('the bind grant', async () => (await byEsc(`${escBindings}?dryRun=All`, { method: 'POST', body })).status === 201, 5000);
      const created = await byEsc(escBindings, { method: 'POST', body });
      assert.equal(created.status, 201, created.body);
    });

    it('the escalate verb allows a Role granting more', async () => {
      await create(escRoles, role('escalator', [{ verbs: ['escalate'], apiGroups: [RBAC], resources: ['roles'] }], 'esc'));
      await create(escBindings, binding('esc-escalate', ref('Role', 'escalator'), [user('esc')], 'esc'));
      const body = role('more', [nodesRule], 'esc');
      await eventually('the escalate grant', async () => (await byEsc(`${escRoles}?dryRun=All`, { method: 'POST', body })).status === 201, 5000);
      assert.equal((await byEsc(escRoles, { method: 'POST', body })).status, 201);
    });

    it('an aggregationRule needs full authority', async () => {
      await create(`${R}/clusterroles`, clusterRole('cr-writer', [{ verbs: ['create'], apiGroups: [RBAC], resources: ['clusterroles'] }]));
      await create(`${R}/clusterrolebindings`, clusterBinding('esc-cr-writer', ref('ClusterRole', 'cr-writer'), [user('esc')]));
      await granted('esc writes ClusterRoles', () => byEsc(`${R}/clusterroles?dryRun=All`, { method: 'POST', body: clusterRole('probe', []) }));
      const aggregated = { metadata: { name: 'gatherer' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { gather: 'true' } }] } };
      const refused = await byEsc(`${R}/clusterroles`, { method: 'POST', body: aggregated });
      assert.equal(refused.status, 403, refused.body);
      assert.equal(messageOf(refused), `clusterroles.${RBAC} "gatherer" is forbidden: must have cluster-admin privileges to use the aggregationRule`);
      assert.equal((await admin(`${R}/clusterroles`, { method: 'POST', body: aggregated })).status, 201);
    });
  });

  describe('access reviews', () => {
    const review = (resource: string, spec: Json, options: AuthRequest = {}): Promise<Response> =>
      admin(`${AZ}/${resource}`, { method: 'POST', body: { apiVersion: `authorization.${DOMAIN}/v1`, spec }, ...options });

    it('SubjectAccessReview: allowed, with the binding that allows it', async () => {
      const response = await review('subjectaccessreviews', { user: 'u-a', resourceAttributes: { namespace: NS, verb: 'get', resource: 'serviceaccounts', name: 'x' } });
      assert.equal(response.status, 201, response.body);
      const body = json(response);
      assert.equal(body.kind, 'SubjectAccessReview');
      assert.deepEqual(body.status, { allowed: true, reason: `RBAC: allowed by RoleBinding "u-a/${NS}" of Role "sa-get" to User "u-a"` });
    });

    it('SubjectAccessReview: not allowed, not denied (RBAC has no opinion)', async () => {
      const body = json(await review('subjectaccessreviews', { user: 'u-a', groups: ['x'], resourceAttributes: { namespace: OTHER, verb: 'get', resource: 'serviceaccounts' } }));
      assert.deepEqual(body.status, { allowed: false });
    });

    it('SubjectAccessReview: non-resource attributes, and a user without groups is in none', async () => {
      assert.equal(json(await review('subjectaccessreviews', { user: 'u-k', nonResourceAttributes: { path: '/metrics', verb: 'get' } })).status.allowed, true);
      // /version is public only through system:unauthenticated and system:authenticated.
      assert.equal(json(await review('subjectaccessreviews', { user: 'u-k', nonResourceAttributes: { path: '/version', verb: 'get' } })).status.allowed, false);
      assert.equal(
        json(await review('subjectaccessreviews', { user: 'u-k', groups: ['system:authenticated'], nonResourceAttributes: { path: '/version', verb: 'get' } })).status.allowed,
        true,
      );
    });

    it('SubjectAccessReview: an unresolvable roleRef is an evaluation error', async () => {
      const body = json(await review('subjectaccessreviews', { user: 'u-m', resourceAttributes: { namespace: NS, verb: 'get', resource: 'serviceaccounts' } }));
      assert.deepEqual(body.status, {
        allowed: false,
        reason: `RBAC: role.${RBAC} "missing" not found`,
        evaluationError: `role.${RBAC} "missing" not found`,
      });
    });

    it('SubjectAccessReview: a User subject with a namespace is an evaluation error, not a grant', async () => {
      const body = json(await review('subjectaccessreviews', { user: 'u-p', resourceAttributes: { namespace: NS, verb: 'list', resource: 'serviceaccounts' } }));
      const error = 'ClusterRoleBinding "t-u-p": User subject "u-p" cannot have a namespace: "x"';
      assert.deepEqual(body.status, { allowed: false, reason: `RBAC: ${error}`, evaluationError: error });
    });

    it('exactly one of resourceAttributes and nonResourceAttributes, and someone to ask about: else 422', async () => {
      const both = await review('subjectaccessreviews', { user: 'u', resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/', verb: 'get' } });
      assert.equal(both.status, 422, both.body);
      assert.match(messageOf(both), /spec\.nonResourceAttributes: Invalid value: .*: cannot be specified in combination with resourceAttributes/);
      const none = await review('selfsubjectaccessreviews', {});
      assert.equal(none.status, 422, none.body);
      assert.match(messageOf(none), /spec\.resourceAttributes: Invalid value: .*: exactly one of nonResourceAttributes or resourceAttributes must be specified/);
      const nobody = await review('subjectaccessreviews', { resourceAttributes: { verb: 'get' } });
      assert.equal(nobody.status, 422, nobody.body);
      assert.match(messageOf(nobody), /spec\.user: Invalid value: "": at least one of user or group must be specified/);
    });

    it('SelfSubjectAccessReview: the requester\u2019s own identity', async () => {
      const spec = { resourceAttributes: { verb: 'list', resource: 'namespaces' } };
      const mine = await authRequest(server, `${AZ}/selfsubjectaccessreviews`, { method: 'POST', token: 'alice-token', body: { spec } });
      assert.equal(mine.status, 201, mine.body);
      assert.deepEqual(json(mine).status, { allowed: false });
      assert.equal(json(await review('selfsubjectaccessreviews', spec)).status.allowed, true);
      const dryRun = await review('selfsubjectaccessreviews', spec, { method: 'POST' });
      assert.equal(dryRun.status, 201);
      assert.equal((await admin(`${AZ}/selfsubjectaccessreviews?dryRun=All`, { method: 'POST', body: { spec } })).status, 201);
    });

    it('LocalSubjectAccessReview: the namespace comes from the path; another is refused', async () => {
      const path = `${AZ}/namespaces/${NS}/localsubjectaccessreviews`;
      const defaulted = await admin(path, { method: 'POST', body: { spec: { user: 'u-a', resourceAttributes: { verb: 'get', resource: 'serviceaccounts' } } } });
      assert.equal(defaulted.status, 201, defaulted.body);
      assert.equal(json(defaulted).metadata.namespace, NS);
      assert.equal(json(defaulted).spec.resourceAttributes.namespace, NS);
      assert.equal(json(defaulted).status.allowed, true);
      const otherBody = await admin(path, { method: 'POST', body: { metadata: { namespace: OTHER }, spec: { user: 'u-a', resourceAttributes: { verb: 'get' } } } });
      assert.equal(otherBody.status, 400, otherBody.body);
      assert.equal(messageOf(otherBody), 'the namespace of the provided object does not match the namespace sent on the request');
      const otherSpec = await admin(path, { method: 'POST', body: { spec: { user: 'u-a', resourceAttributes: { namespace: OTHER, verb: 'get' } } } });
      assert.equal(otherSpec.status, 422, otherSpec.body);
      assert.match(messageOf(otherSpec), /spec\.resourceAttributes\.namespace: Invalid value: "tbl-x": must match metadata\.namespace/);
    });

    it('SelfSubjectRulesReview: the rules in a namespace, with evaluation errors', async () => {
      const rules = await as({ user: 'u-j' }, `${AZ}/selfsubjectrulesreviews`, { method: 'POST', body: { spec: { namespace: NS } } });
      assert.equal(rules.status, 201, rules.body);
      const status = json(rules).status;
      assert.equal(status.incomplete, false);
      assert.ok(
        status.resourceRules.some((r: Json) => r.resourceNames?.[0] === 'named' && r.resources[0] === 'serviceaccounts'),
        JSON.stringify(status.resourceRules),
      );
      assert.ok(status.nonResourceRules.some((r: Json) => r.nonResourceURLs.includes('/healthz')));
      const broken = json(await as({ user: 'u-m' }, `${AZ}/selfsubjectrulesreviews`, { method: 'POST', body: { spec: { namespace: NS } } }));
      assert.equal(broken.status.evaluationError, `role.${RBAC} "missing" not found`);
      const noNamespace = await admin(`${AZ}/selfsubjectrulesreviews`, { method: 'POST', body: { spec: {} } });
      assert.equal(noNamespace.status, 400, noNamespace.body);
    });

    it('create only, and discovery says so', async () => {
      const get = await admin(`${AZ}/subjectaccessreviews`);
      assert.equal(get.status, 405, get.body);
      const resources = json(await admin(AZ)).resources as Json[];
      assert.deepEqual(
        resources.map((r) => [r.name, r.namespaced, r.verbs]).sort(),
        [
          ['localsubjectaccessreviews', true, ['create']],
          ['selfsubjectaccessreviews', false, ['create']],
          ['selfsubjectrulesreviews', false, ['create']],
          ['subjectaccessreviews', false, ['create']],
        ],
      );
    });
  });

  it('the bootstrap policy exists once, with admin, edit and view aggregated', async () => {
    const names = (json(await admin(`${R}/clusterroles`)).items as Json[]).map((item) => item.metadata.name);
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer']) {
      assert.ok(names.includes(name), `${name} in ${names}`);
    }
    const view = json(await admin(`${R}/clusterroles/view`));
    assert.deepEqual(view.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { [`${RBAC}/aggregate-to-view`]: 'true' } }] });
    assert.ok((view.rules as Json[]).some((rule) => rule.resources.includes('serviceaccounts') && rule.verbs.includes('list')));
    const bindings = (json(await admin(`${R}/clusterrolebindings`)).items as Json[]).map((item) => item.metadata.name);
    for (const name of ['cluster-admin', 'system:discovery', 'system:basic-user', 'system:public-info-viewer']) assert.ok(bindings.includes(name), name);
  });
});
