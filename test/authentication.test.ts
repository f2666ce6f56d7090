// Authentication over HTTP: client certificates, service-account tokens (TokenRequest,
// TokenReview, refusal once the account is gone), impersonation, anonymous requests and
// SelfSubjectReview, against one replica.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, sign } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { eventually, startApiserver, type ApiserverProcess, type Response } from './support/apiserver-process.js';
import { authFiles, authRequest, messageOf, type AuthFiles, type AuthRequest } from './support/auth.js';

const DOMAIN = 'plat.io';
const ISSUER = 'https://issuer.plat.example';
const RBAC = `rbac.authorization.${DOMAIN}`;
const R = `/apis/${RBAC}/v1`;
const AUTHN = `/apis/authentication.${DOMAIN}/v1`;
const NS = 'sa-test';

interface Json {
  [field: string]: any;
}

const json = (response: Response): Json => JSON.parse(response.body) as Json;

describe('authentication over HTTP', () => {
  let server: ApiserverProcess;
  let files: AuthFiles;
  const admin = (path: string, options: AuthRequest = {}): Promise<Response> => authRequest(server, path, { token: files.admin, ...options });
  const create = async (path: string, body: Json): Promise<Json> => {
    const created = await admin(path, { method: 'POST', body });
    assert.equal(created.status, 201, `${path}: ${created.body}`);
    return json(created);
  };
  /** Who the server takes the request to be (SelfSubjectReview's status.userInfo), or the failure. */
  const whoami = async (options: AuthRequest): Promise<Json | Response> => {
    const response = await authRequest(server, `${AUTHN}/selfsubjectreviews`, { method: 'POST', body: {}, ...options });
    return response.status === 201 ? (json(response).status.userInfo as Json) : response;
  };
  const tokenFor = async (name: string, spec: Json = {}): Promise<Response> =>
    admin(`/api/v1/namespaces/${NS}/serviceaccounts/${name}/token`, { method: 'POST', body: { spec } });
  const tokenReview = async (token: string, audiences?: string[]): Promise<Json> => {
    const response = await admin(`${AUTHN}/tokenreviews`, { method: 'POST', body: { spec: { token, ...(audiences && { audiences }) } } });
    assert.equal(response.status, 201, response.body);
    return json(response).status as Json;
  };

  before(async () => {
    files = await authFiles([{ name: 'imp', token: 'imp-token' }]);
    server = await startApiserver([
      '--storage-backend=memory',
      `--token-auth-file=${files.tokenFile}`,
      `--client-ca-file=${files.clientCAFile}`,
      `--service-account-issuer=${ISSUER}`,
      `--service-account-signing-key-file=${files.signingKeyFile}`,
    ]);
    await eventually('readyz', async () => (await server.request('/readyz')).status === 200);
    await create('/api/v1/namespaces', { metadata: { name: NS } });
  });
  after(async () => {
    await server?.stop();
    await files?.cleanup();
  });

  describe('client certificates', () => {
    it('CommonName is the user and each Organization a group', async () => {
      const cert = await files.clientCert('carol', ['devs', 'ops']);
      assert.deepEqual(await whoami({ cert }), { username: 'carol', groups: ['devs', 'ops', 'system:authenticated'] });
    });

    it('a certificate the client CA did not sign is a 401', async () => {
      const response = (await whoami({ cert: await files.strangerCert('mallory') })) as Response;
      assert.equal(response.status, 401, response.body);
      assert.equal(messageOf(response), 'Unauthorized');
    });

    it('a certificate in system:masters is allowed anything', async () => {
      const cert = await files.clientCert('root', ['system:masters']);
      assert.equal((await authRequest(server, '/api/v1/namespaces', { cert })).status, 200);
    });
  });

  describe('anonymous requests', () => {
    it('are system:anonymous in system:unauthenticated', async () => {
      const response = await authRequest(server, `${AUTHN}/selfsubjectreviews`, { method: 'POST', body: {} });
      // Anonymous users are not given system:basic-user.
      assert.equal(response.status, 403, response.body);
      assert.equal(
        messageOf(response),
        `selfsubjectreviews.authentication.${DOMAIN} is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.${DOMAIN}" at the cluster scope`,
      );
      assert.equal((await authRequest(server, '/healthz')).status, 200);
    });
  });

  describe('service-account tokens', () => {
    let robot: Json;
    let token: string;

    before(async () => {
      robot = await create(`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'robot' } });
      const response = await tokenFor('robot');
      assert.equal(response.status, 201, response.body);
      token = json(response).status.token as string;
    });

    it('a server that issues tokens lists serviceaccounts/token in discovery', async () => {
      const v1 = json(await admin('/api/v1'));
      const token = (v1.resources as Json[]).find((r) => r.name === 'serviceaccounts/token');
      assert.deepEqual([token?.group, token?.kind, token?.verbs], [`authentication.${DOMAIN}`, 'TokenRequest', ['create']]);
    });

    it('TokenRequest: a signed JWT for the account, for the API server by default, valid an hour', async () => {
      const response = await tokenFor('robot');
      const body = json(response);
      assert.equal(body.kind, 'TokenRequest');
      assert.equal(body.apiVersion, `authentication.${DOMAIN}/v1`);
      assert.deepEqual(body.metadata.name, 'robot');
      assert.deepEqual(body.spec, { audiences: [ISSUER], expirationSeconds: 3600 });
      const lifetime = Date.parse(body.status.expirationTimestamp) - Date.now();
      assert.ok(lifetime > 3590_000 && lifetime <= 3600_000, String(lifetime));
      const [header, payload] = (body.status.token as string).split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Json);
      assert.equal(header!.alg, 'RS256');
      assert.ok(header!.kid);
      assert.equal(payload!.iss, ISSUER);
      assert.equal(payload!.sub, `system:serviceaccount:${NS}:robot`);
      assert.deepEqual(payload!.aud, [ISSUER]);
      assert.deepEqual(payload![DOMAIN], { namespace: NS, serviceaccount: { name: 'robot', uid: robot.metadata.uid } });
      assert.equal(payload!.exp - payload!.iat, 3600);
    });

    it('the token authenticates as the account, in the service-account groups', async () => {
      assert.deepEqual(await whoami({ token }), {
        username: `system:serviceaccount:${NS}:robot`,
        uid: robot.metadata.uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated'],
      });
      const refused = await authRequest(server, `/api/v1/namespaces/${NS}/serviceaccounts`, { token });
      assert.equal(refused.status, 403);
      assert.match(messageOf(refused), new RegExp(`User "system:serviceaccount:${NS}:robot" cannot list resource "serviceaccounts"`));
    });

    it('a RoleBinding to the account grants it', async () => {
      await create(`${R}/namespaces/${NS}/roles`, { metadata: { name: 'sa-reader' }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['serviceaccounts'] }] });
      await create(`${R}/namespaces/${NS}/rolebindings`, {
        metadata: { name: 'robot-reads' },
        roleRef: { apiGroup: RBAC, kind: 'Role', name: 'sa-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: NS }],
      });
      await eventually('the grant', async () => (await authRequest(server, `/api/v1/namespaces/${NS}/serviceaccounts`, { token })).status === 200, 5000);
    });

    it('expirationSeconds within upstream\u2019s bounds, else 422', async () => {
      for (const seconds of [599, 2 ** 32 + 1]) {
        const response = await tokenFor('robot', { expirationSeconds: seconds });
        assert.equal(response.status, 422, response.body);
        assert.match(messageOf(response), /^TokenRequest\.authentication\.plat\.io "" is invalid: spec\.expirationSeconds: Invalid value: \d+: may not specify a duration (less than 10 minutes|larger than 2\^32 seconds)$/);
      }
      const exact = json(await tokenFor('robot', { expirationSeconds: 600 }));
      assert.equal(exact.spec.expirationSeconds, 600);
    });

    it('TokenRequest for a missing account is a 404; the name in the body must match', async () => {
      const missing = await tokenFor('nobody');
      assert.equal(missing.status, 404, missing.body);
      assert.equal(messageOf(missing), 'serviceaccounts "nobody" not found');
      const mismatch = await admin(`/api/v1/namespaces/${NS}/serviceaccounts/robot/token`, { method: 'POST', body: { metadata: { name: 'other' }, spec: {} } });
      assert.equal(mismatch.status, 422, mismatch.body);
      assert.match(messageOf(mismatch), /metadata\.name: Invalid value: "other": must match the service account name if specified/);
    });

    it('boundObjectRef: an object that does not exist, or a kind that cannot be bound', async () => {
      const pod = await tokenFor('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } });
      assert.equal(pod.status, 404, pod.body);
      assert.equal(messageOf(pod), 'pods "p" not found');
      const configMap = await tokenFor('robot', { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'c' } });
      assert.equal(configMap.status, 400, configMap.body);
      assert.match(messageOf(configMap), /cannot bind token for serviceaccount "robot" to object of type v1, Kind=ConfigMap/);
    });

    it('TokenReview: authenticated, with the audiences; another audience is refused', async () => {
      const review = await tokenReview(token);
      assert.equal(review.authenticated, true);
      assert.equal(review.user.username, `system:serviceaccount:${NS}:robot`);
      assert.deepEqual(review.audiences, [ISSUER]);
      const vault = await tokenReview(token, ['vault']);
      assert.equal(vault.authenticated, undefined);
      assert.deepEqual(vault.user, {});
      assert.equal(vault.error, `token audiences ["${ISSUER}"] is invalid for the target audiences ["vault"]`);
      assert.deepEqual(await tokenReview('not-a-token'), { user: {}, error: 'invalid bearer token' });
      const fileToken = await tokenReview('imp-token');
      assert.equal(fileToken.user.username, 'imp');
    });

    it('a token for another audience does not reach the API, but reviews for that audience', async () => {
      const vaultToken = json(await tokenFor('robot', { audiences: ['vault'] })).status.token as string;
      const response = await authRequest(server, `${AUTHN}/selfsubjectreviews`, { method: 'POST', body: {}, token: vaultToken });
      assert.equal(response.status, 401, response.body);
      const review = await tokenReview(vaultToken, ['vault']);
      assert.equal(review.authenticated, true);
      assert.deepEqual(review.audiences, ['vault']);
    });

    it('an expired token, or one of another issuer, is refused', async () => {
      const key = createPrivateKey(await readFile(files.signingKeyFile));
      const now = Math.floor(Date.now() / 1000);
      const jwt = (claims: Json): string => {
        const head = Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url');
        const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
        return `${head}.${body}.${sign('sha256', Buffer.from(`${head}.${body}`), key).toString('base64url')}`;
      };
      const claims = {
        iss: ISSUER,
        sub: `system:serviceaccount:${NS}:robot`,
        aud: [ISSUER],
        [DOMAIN]: { namespace: NS, serviceaccount: { name: 'robot', uid: robot.metadata.uid } },
      };
      const expired = jwt({ ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 3600 });
      assert.equal((await whoami({ token: expired }) as Response).status, 401);
      assert.equal((await tokenReview(expired)).error, 'service account token has expired');
      const foreign = jwt({ ...claims, iss: 'https://elsewhere', iat: now, nbf: now, exp: now + 600 });
      assert.equal((await tokenReview(foreign)).error, 'invalid bearer token');
      const good = jwt({ ...claims, iat: now, nbf: now, exp: now + 600 });
      assert.equal((await tokenReview(good)).authenticated, true);
    });

    it('refused once the account is deleted, and after it is re-created with another uid', async () => {
      const other = await create(`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'short-lived' } });
      const shortToken = json(await tokenFor('short-lived')).status.token as string;
      assert.equal((await whoami({ token: shortToken }) as Json).uid, other.metadata.uid);
      assert.equal((await admin(`/api/v1/namespaces/${NS}/serviceaccounts/short-lived`, { method: 'DELETE' })).status, 200);
      assert.equal((await whoami({ token: shortToken }) as Response).status, 401);
      assert.equal((await tokenReview(shortToken)).error, 'serviceaccounts "short-lived" not found');
      const again = await create(`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'short-lived' } });
      assert.equal((await whoami({ token: shortToken }) as Response).status, 401);
      assert.equal((await tokenReview(shortToken)).error, `service account UID (${again.metadata.uid}) does not match claim (${other.metadata.uid})`);
    });

    it('TokenRequest needs create on serviceaccounts/token', async () => {
      const response = await authRequest(server, `/api/v1/namespaces/${NS}/serviceaccounts/robot/token`, { method: 'POST', token: 'imp-token', body: { spec: {} } });
      assert.equal(response.status, 403);
      assert.equal(
        messageOf(response),
        `serviceaccounts "robot" is forbidden: User "imp" cannot create resource "serviceaccounts/token" in API group "" in the namespace "${NS}"`,
      );
      const get = await admin(`/api/v1/namespaces/${NS}/serviceaccounts/robot/token`);
      assert.equal(get.status, 405, get.body);
    });
  });

  describe('impersonation', () => {
    const byImp = (headers: Record<string, string | string[]>): Promise<Json | Response> => whoami({ token: 'imp-token', headers });
    const allow = async (name: string, rules: Json[], probe: Record<string, string | string[]>): Promise<void> => {
      await create(`${R}/clusterroles`, { metadata: { name }, rules });
      await create(`${R}/clusterrolebindings`, {
        metadata: { name },
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name },
        subjects: [{ kind: 'User', name: 'imp' }],
      });
      await eventually(name, async () => !('status' in (await byImp(probe))), 5000);
    };

    it('each part needs the impersonate verb; the message names what was refused', async () => {
      const cases: [Record<string, string | string[]>, string][] = [
        [{ 'Impersonate-User': 'bob' }, 'users "bob" is forbidden: User "imp" cannot impersonate resource "users" in API group "" at the cluster scope'],
        [
          { 'Impersonate-User': `system:serviceaccount:${NS}:robot` },
          `serviceaccounts "robot" is forbidden: User "imp" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "${NS}"`,
        ],
      ];
      for (const [headers, message] of cases) {
        const response = (await byImp(headers)) as Response;
        assert.equal(response.status, 403, response.body);
        assert.equal(messageOf(response), message);
      }
    });

    it('a user, then groups, extras and a uid, as each is granted', async () => {
      await allow('imp-users', [{ verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['bob'] }], { 'Impersonate-User': 'bob' });
      assert.deepEqual(await byImp({ 'Impersonate-User': 'bob' }), { username: 'bob', groups: ['system:authenticated'] });
      const group = (await byImp({ 'Impersonate-User': 'bob', 'Impersonate-Group': ['g1', 'g2'] })) as Response;
      assert.equal(group.status, 403);
      assert.equal(messageOf(group), 'groups "g1" is forbidden: User "imp" cannot impersonate resource "groups" in API group "" at the cluster scope');

      const full = { 'Impersonate-User': 'bob', 'Impersonate-Group': ['g1', 'g2'], 'Impersonate-Extra-Scopes': ['a', 'b'], 'Impersonate-Uid': 'bob-uid' };
      await allow(
        'imp-rest',
        [
          { verbs: ['impersonate'], apiGroups: [''], resources: ['groups'] },
          { verbs: ['impersonate'], apiGroups: [`authentication.${DOMAIN}`], resources: ['userextras/scopes', 'uids'] },
        ],
        full,
      );
      assert.deepEqual(await byImp(full), { username: 'bob', uid: 'bob-uid', groups: ['g1', 'g2', 'system:authenticated'], extra: { scopes: ['a', 'b'] } });
      const otherExtra = (await byImp({ 'Impersonate-User': 'bob', 'Impersonate-Extra-Reason': 'x' })) as Response;
      assert.equal(otherExtra.status, 403);
      assert.equal(
        messageOf(otherExtra),
        `userextras.authentication.${DOMAIN} "x" is forbidden: User "imp" cannot impersonate resource "userextras/reason" in API group "authentication.${DOMAIN}" at the cluster scope`,
      );
    });

    it('a service account gets its groups unless groups are given', async () => {
      const account = { 'Impersonate-User': `system:serviceaccount:${NS}:robot` };
      await allow('imp-sa', [{ verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'] }], account);
      assert.deepEqual(await byImp(account), {
        username: `system:serviceaccount:${NS}:robot`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated'],
      });
      assert.deepEqual(await byImp({ ...account, 'Impersonate-Group': 'g1' }), { username: `system:serviceaccount:${NS}:robot`, groups: ['g1', 'system:authenticated'] });
    });

    it('groups without a user are refused', async () => {
      for (const headers of [{ 'Impersonate-Group': 'g1' }, { 'Impersonate-Uid': 'u1' }, { 'Impersonate-Extra-Scopes': 's' }] as Record<string, string>[]) {
        const response = (await byImp(headers)) as Response;
        assert.equal(response.status, 400, response.body);
        assert.match(messageOf(response), /without impersonating a user: the Impersonate-User header is missing$/);
      }
    });

    it('the impersonated user is authorized, not the impersonator', async () => {
      const response = await authRequest(server, '/api/v1/namespaces', { token: files.admin, headers: { 'Impersonate-User': 'nobody' } });
      assert.equal(response.status, 403);
      assert.equal(messageOf(response), 'namespaces is forbidden: User "nobody" cannot list resource "namespaces" in API group "" at the cluster scope');
    });
  });
});
