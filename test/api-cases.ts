// The resource API over HTTP (conventions sections 2-4, 6, 7): one table of cases that runs against
// a replica on each storage backend and in each API domain.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect as tlsConnect } from 'node:tls';
import { builtinDefinitions, builtinSubresourceDefinitions } from '@plat/api';
import { decodeObject, decodeWatchFrames, encodeObject, PROTOBUF_PREFIX, registerProtobufKinds } from '@plat/protobuf';
import type { ApiserverProcess, RequestOptions, Response } from './support/apiserver-process.js';

// The kinds' Protobuf forms, from their definitions, as the server registers them.
registerProtobufKinds([...builtinDefinitions, ...builtinSubresourceDefinitions]);

export interface ApiTarget {
  server: ApiserverProcess;
  token: string;
  domain: string;
}

/** Responses are read field by field in assertions; their shape is what is under test. */
interface Json {
  [field: string]: any;
}

export function runApiCases(title: string, start: () => Promise<ApiTarget>, stop: () => Promise<void>): void {
  describe(title, () => {
    let target: ApiTarget;
    let rbac: string;
    let nsCounter = 0;
    before(async () => {
      target = await start();
      rbac = `/apis/rbac.authorization.${target.domain}/v1`;
    });
    after(stop);

    const call = async (path: string, options: RequestOptions = {}): Promise<Response & { json: Json }> => {
      const response = await target.server.request(path, { token: target.token, ...options });
      let json: Json = {};
      try {
        json = JSON.parse(response.body) as Json;
      } catch {
        // not JSON: the assertions say what was expected
      }
      return { ...response, json };
    };
    const role = (name: string, extra: Json = {}): Json => ({
      apiVersion: `rbac.authorization.${target.domain}/v1`,
      kind: 'Role',
      metadata: { name, ...extra.metadata },
      rules: extra.rules ?? [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    });
    /** A fresh namespace for one case. */
    const namespace = async (): Promise<string> => {
      const name = `case-${process.pid}-${++nsCounter}`;
      const created = await call('/api/v1/namespaces', { method: 'POST', body: { metadata: { name } } });
      assert.equal(created.status, 201, created.body);
      return name;
    };
    const roles = (ns: string): string => `${rbac}/namespaces/${ns}/roles`;
    const expectStatus = (response: Response & { json: Json }, code: number, reason?: string): void => {
      assert.equal(response.status, code, response.body);
      assert.equal(response.json.kind, 'Status', response.body);
      assert.equal(response.json.code, code);
      if (reason) assert.equal(response.json.reason, reason, response.body);
    };

    describe('discovery', () => {
      it('lists the core and named groups and their resources', async () => {
        const api = await call('/api');
        assert.deepEqual(api.json.versions, ['v1']);
        const v1 = await call('/api/v1');
        const names = v1.json.resources.map((r: Json) => r.name);
        for (const name of ['namespaces', 'namespaces/status', 'namespaces/finalize', 'serviceaccounts', 'limitranges']) {
          assert.ok(names.includes(name), `${name} in ${names}`);
        }
        // This server has no service-account signing key: like upstream, it does not serve TokenRequest
        // (test/authentication.test.ts covers a server that does).
        assert.ok(!names.includes('serviceaccounts/token'), names.join(' '));
        expectStatus(await call('/api/v1/namespaces/default/serviceaccounts/default/token', { method: 'POST', body: { spec: {} } }), 404, 'NotFound');
        const sa = v1.json.resources.find((r: Json) => r.name === 'serviceaccounts');
        assert.equal(sa.kind, 'ServiceAccount');
        assert.equal(sa.namespaced, true);
        assert.equal(sa.singularName, 'serviceaccount');
        assert.ok(sa.verbs.includes('watch'));
        const groups = (await call('/apis')).json.groups.map((g: Json) => g.name);
        assert.ok(groups.includes(`rbac.authorization.${target.domain}`));
        const group = await call(`/apis/rbac.authorization.${target.domain}`);
        assert.equal(group.json.preferredVersion.version, 'v1');
        const resources = (await call(rbac)).json.resources.map((r: Json) => r.name);
        assert.deepEqual([...resources].sort(), ['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles']);
      });

      it('serves the aggregated document when asked for it, and the plain one otherwise', async () => {
        for (const version of ['v2beta1', 'v2']) {
          const accept = `application/json;g=apidiscovery.${target.domain};v=${version};as=APIGroupDiscoveryList,application/json`;
          const apis = await call('/apis', { headers: { accept } });
          assert.equal(apis.json.kind, 'APIGroupDiscoveryList');
          assert.match(String(apis.headers['content-type']), new RegExp(`as=APIGroupDiscoveryList`));
          const rbacGroup = apis.json.items.find((item: Json) => item.metadata.name === `rbac.authorization.${target.domain}`);
          const roleResource = rbacGroup.versions[0].resources.find((r: Json) => r.resource === 'roles');
          assert.equal(roleResource.scope, 'Namespaced');
          assert.equal(roleResource.responseKind.kind, 'Role');
          const core = await call('/api', { headers: { accept } });
          const namespaces = core.json.items[0].versions[0].resources.find((r: Json) => r.resource === 'namespaces');
          assert.deepEqual(
            namespaces.subresources.map((s: Json) => s.subresource).sort(),
            ['finalize', 'status'],
          );
        }
        const plain = await call('/apis', { headers: { accept: 'application/json' } });
        assert.equal(plain.json.kind, 'APIGroupList');
      });

      it('answers an unknown path with a 404 Status', async () => {
        expectStatus(await call('/apis/nothing.example/v1/things'), 404, 'NotFound');
        expectStatus(await call('/api/v1/nothings'), 404, 'NotFound');
      });
    });

    describe('objects', () => {
      it('the system namespaces exist after start-up', async () => {
        const prefix = target.domain === 'k8s.io' ? 'kube' : target.domain.split('.')[0];
        for (const name of ['default', `${prefix}-system`, `${prefix}-public`, `${prefix}-node-lease`]) {
          const ns = await call(`/api/v1/namespaces/${name}`);
          assert.equal(ns.status, 200, `${name}: ${ns.body}`);
          assert.equal(ns.json.status.phase, 'Active');
        }
      });

      it('create, get, list, update and delete a Role, with server-set metadata', async () => {
        const ns = await namespace();
        const created = await call(roles(ns), { method: 'POST', body: role('reader', { metadata: { labels: { app: 'x' } } }) });
        assert.equal(created.status, 201, created.body);
        const meta = created.json.metadata;
        assert.match(meta.uid, /^[0-9a-f-]{36}$/);
        assert.match(meta.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        assert.match(meta.resourceVersion, /^\d+$/);
        assert.equal(meta.namespace, ns);
        // A Role has no generation of its own (upstream's strategies set one for workloads only).
        assert.equal(meta.generation, undefined);
        assert.equal(created.json.kind, 'Role');

        const got = await call(`${roles(ns)}/reader`);
        assert.deepEqual(got.json, created.json);

        const list = await call(roles(ns));
        assert.equal(list.json.kind, 'RoleList');
        assert.equal(list.json.items.length, 1);
        assert.ok(Number(list.json.metadata.resourceVersion) >= Number(meta.resourceVersion));

        const changed = { ...created.json, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] };
        const updated = await call(`${roles(ns)}/reader`, { method: 'PUT', body: changed });
        assert.equal(updated.status, 200, updated.body);
        assert.notEqual(updated.json.metadata.resourceVersion, meta.resourceVersion);
        assert.equal(updated.json.metadata.uid, meta.uid);
        assert.equal(updated.json.metadata.creationTimestamp, meta.creationTimestamp);

        const stale = await call(`${roles(ns)}/reader`, { method: 'PUT', body: changed });
        expectStatus(stale, 409, 'Conflict');
        assert.match(stale.json.message, /the object has been modified/);

        const deleted = await call(`${roles(ns)}/reader`, { method: 'DELETE' });
        assert.equal(deleted.status, 200, deleted.body);
        assert.equal(deleted.json.kind, 'Status');
        assert.equal(deleted.json.status, 'Success');
        assert.equal(deleted.json.details.name, 'reader');
        const missing = await call(`${roles(ns)}/reader`);
        expectStatus(missing, 404, 'NotFound');
        assert.equal(missing.json.message, `roles.rbac.authorization.${target.domain} "reader" not found`);
        assert.deepEqual(missing.json.details, { name: 'reader', group: `rbac.authorization.${target.domain}`, kind: 'roles' });
      });

      it('create twice is 409 AlreadyExists', async () => {
        const ns = await namespace();
        assert.equal((await call(roles(ns), { method: 'POST', body: role('twice') })).status, 201);
        expectStatus(await call(roles(ns), { method: 'POST', body: role('twice') }), 409, 'AlreadyExists');
      });

      it('generateName gives a unique name with a random suffix', async () => {
        const ns = await namespace();
        const names = new Set<string>();
        for (let i = 0; i < 5; i++) {
          const created = await call(roles(ns), { method: 'POST', body: { ...role(''), metadata: { generateName: 'gen-' } } });
          assert.equal(created.status, 201, created.body);
          assert.match(created.json.metadata.name, /^gen-[a-z0-9]{5}$/);
          names.add(created.json.metadata.name);
        }
        assert.equal(names.size, 5);
      });

      it('an invalid object is 422 with one cause per bad field', async () => {
        const ns = await namespace();
        const bad = await call(roles(ns), {
          method: 'POST',
          body: { ...role('bad%name'), rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }] },
        });
        expectStatus(bad, 422, 'Invalid');
        const fields = bad.json.details.causes.map((c: Json) => c.field);
        assert.ok(fields.includes('metadata.name'), bad.body);
        assert.ok(fields.includes('rules[0].verbs'), bad.body);
        assert.equal(bad.json.details.kind, 'Role');
      });

      it('creating in a missing namespace is 404, in a terminating one 403', async () => {
        expectStatus(await call(roles('no-such-namespace'), { method: 'POST', body: role('r') }), 404, 'NotFound');
        const ns = await namespace();
        const deleting = await call(`/api/v1/namespaces/${ns}`, { method: 'DELETE' });
        assert.equal(deleting.status, 200, deleting.body);
        assert.equal(deleting.json.status.phase, 'Terminating');
        assert.ok(deleting.json.metadata.deletionTimestamp);
        const refused = await call(roles(ns), { method: 'POST', body: role('r') });
        expectStatus(refused, 403, 'Forbidden');
        assert.match(refused.json.message, /because it is being terminated/);
      });

      it('a PUT to a missing object creates it where the kind allows, and is 404 where not', async () => {
        const ns = await namespace();
        const created = await call(`${roles(ns)}/put-created`, { method: 'PUT', body: role('put-created') });
        assert.equal(created.status, 201, created.body);
        expectStatus(
          await call('/api/v1/namespaces/never-created', { method: 'PUT', body: { metadata: { name: 'never-created' } } }),
          404,
          'NotFound',
        );
      });

      it('a name that differs from the URL, or a namespace that differs from the path, is 400', async () => {
        const ns = await namespace();
        expectStatus(await call(`${roles(ns)}/a`, { method: 'PUT', body: role('b') }), 400, 'BadRequest');
        expectStatus(
          await call(roles(ns), { method: 'POST', body: role('c', { metadata: { namespace: 'elsewhere' } }) }),
          400,
          'BadRequest',
        );
      });

      it('a Namespace is Terminating until its finalizers are gone, then removed (finalize subresource)', async () => {
        const ns = await namespace();
        const created = (await call(`/api/v1/namespaces/${ns}`)).json;
        assert.ok(created.spec.finalizers.length > 0, 'a namespace gets the platform finalizer');
        const deleting = await call(`/api/v1/namespaces/${ns}`, { method: 'DELETE' });
        assert.equal(deleting.json.status.phase, 'Terminating');
        assert.equal((await call(`/api/v1/namespaces/${ns}`)).status, 200);
        const status = await call(`/api/v1/namespaces/${ns}/status`);
        assert.equal(status.json.status.phase, 'Terminating');
        const finalized = await call(`/api/v1/namespaces/${ns}/finalize`, {
          method: 'PUT',
          body: { ...deleting.json, spec: { finalizers: [] } },
        });
        assert.equal(finalized.status, 200, finalized.body);
        expectStatus(await call(`/api/v1/namespaces/${ns}`), 404, 'NotFound');
        expectStatus(await call('/api/v1/namespaces/default', { method: 'DELETE' }), 403, 'Forbidden');
      });

      it('deleting a ServiceAccount returns the ServiceAccount', async () => {
        const ns = await namespace();
        await call(`/api/v1/namespaces/${ns}/serviceaccounts`, { method: 'POST', body: { metadata: { name: 'robot' } } });
        const deleted = await call(`/api/v1/namespaces/${ns}/serviceaccounts/robot`, { method: 'DELETE' });
        assert.equal(deleted.status, 200, deleted.body);
        assert.equal(deleted.json.kind, 'ServiceAccount');
        assert.equal(deleted.json.metadata.name, 'robot');
      });

      it('the Status of a deleted core object names no group (omitempty, as upstream)', async () => {
        const ns = await namespace();
        const limits = `/api/v1/namespaces/${ns}/limitranges`;
        await call(limits, { method: 'POST', body: { metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', max: { cpu: 0.5 } }] } } });
        const deleted = await call(`${limits}/l`, { method: 'DELETE' });
        assert.equal(deleted.status, 200, deleted.body);
        assert.deepEqual(Object.keys(deleted.json.details).sort(), ['kind', 'name', 'uid']);
        assert.equal(deleted.json.details.kind, 'limitranges');
      });

      it('an object with finalizers is marked, then removed when they are gone', async () => {
        const ns = await namespace();
        await call(roles(ns), { method: 'POST', body: role('held', { metadata: { finalizers: ['example.com/hold'] } }) });
        const marked = await call(`${roles(ns)}/held`, { method: 'DELETE' });
        assert.equal(marked.status, 200, marked.body);
        assert.equal(marked.json.kind, 'Role');
        assert.ok(marked.json.metadata.deletionTimestamp);
        const released = { ...marked.json, metadata: { ...marked.json.metadata, finalizers: [] } };
        assert.equal((await call(`${roles(ns)}/held`, { method: 'PUT', body: released })).status, 200);
        expectStatus(await call(`${roles(ns)}/held`), 404, 'NotFound');
      });

      it('deletecollection honours label and field selectors', async () => {
        const ns = await namespace();
        for (const [name, tier] of [['a', 'web'], ['b', 'web'], ['c', 'db']] as const) {
          await call(roles(ns), { method: 'POST', body: role(name, { metadata: { labels: { tier } } }) });
        }
        const gone = await call(`${roles(ns)}?labelSelector=tier%3Dweb&fieldSelector=metadata.name!%3Db`, { method: 'DELETE' });
        assert.equal(gone.status, 200, gone.body);
        // Upstream answers with the list of what was selected.
        assert.equal(gone.json.kind, 'RoleList');
        assert.deepEqual(gone.json.items.map((item: Json) => item.metadata.name), ['a']);
        assert.match(gone.json.metadata.resourceVersion, /^\d+$/);
        const left = (await call(roles(ns))).json.items.map((item: Json) => item.metadata.name);
        assert.deepEqual(left, ['b', 'c']);
      });

      it('lists across all namespaces, with label and field selectors', async () => {
        const [one, two] = [await namespace(), await namespace()];
        await call(roles(one), { method: 'POST', body: role('x', { metadata: { labels: { pick: 'yes' } } }) });
        await call(roles(two), { method: 'POST', body: role('y', { metadata: { labels: { pick: 'no' } } }) });
        const all = await call(`${rbac}/roles?labelSelector=pick`);
        const names = all.json.items.map((item: Json) => `${item.metadata.namespace}/${item.metadata.name}`);
        assert.ok(names.includes(`${one}/x`) && names.includes(`${two}/y`), names.join());
        const picked = await call(`${rbac}/roles?labelSelector=pick%20in%20(yes)`);
        assert.deepEqual(
          picked.json.items.map((item: Json) => item.metadata.name),
          ['x'],
        );
        const byNamespace = await call(`${rbac}/roles?fieldSelector=metadata.namespace%3D${two}`);
        assert.deepEqual(
          byNamespace.json.items.map((item: Json) => item.metadata.name),
          ['y'],
        );
        expectStatus(await call(`${rbac}/roles?fieldSelector=spec.nothing%3Dx`), 400, 'BadRequest');
        expectStatus(await call(`${rbac}/roles?labelSelector=a%20in%20(`), 400, 'BadRequest');
      });
    });

    describe('PATCH and server-side apply (4.5, 4.11)', () => {
      const patch = (path: string, type: string, body: string, query = '') =>
        target.server
          .request(`${path}${query}`, { token: target.token, method: 'PATCH', headers: { 'content-type': type }, rawBody: body })
          .then((response) => ({ ...response, json: JSON.parse(response.body || '{}') as Json }));
      const sa = (ns: string) => `/api/v1/namespaces/${ns}/serviceaccounts`;

      it('a namespace status: apply records its manager on the subresource; PUT keeps the request metadata but not the spec', async () => {
        const ns = await namespace();
        const status = `/api/v1/namespaces/${ns}/status`;
        const body = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\nstatus:\n  conditions:\n  - type: Probe\n    status: "True"\n`;
        const applied = await patch(status, 'application/apply-patch+yaml', body, '?fieldManager=prober');
        assert.equal(applied.status, 200, applied.body);
        const entry = (applied.json.metadata.managedFields as Json[]).find((e) => e.manager === 'prober');
        assert.deepEqual([entry?.operation, entry?.subresource], ['Apply', 'status'], applied.body);
        assert.deepEqual(entry?.fieldsV1, { 'f:status': { 'f:conditions': { 'k:{"type":"Probe"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } });

        const current = (await call(status)).json;
        const put = await call(status, {
          method: 'PUT',
          body: { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, via: 'status' } }, spec: { finalizers: [] } },
        });
        assert.equal(put.status, 200, put.body);
        assert.equal(put.json.metadata.labels.via, 'status');
        assert.ok(put.json.spec.finalizers.length > 0, 'the spec is not the status subresource\'s');
      });

      it('a create owns what it sent and the defaults, not what the strategy adds; always-present structs get no "."', async () => {
        const name = `owned-${Date.now().toString(36)}`;
        const created = await call('/api/v1/namespaces?fieldManager=creator', { method: 'POST', body: { metadata: { name } } });
        assert.equal(created.status, 201, created.body);
        const entry = (created.json.metadata.managedFields as Json[]).find((e) => e.manager === 'creator');
        // The name label is a default; spec.finalizers and status.phase come from the strategy.
        const wellKnown = target.domain === 'k8s.io' ? 'kubernetes.io' : target.domain;
        assert.deepEqual(entry?.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, [`f:${wellKnown}/metadata.name`]: {} } } });
        const limits = await call(`/api/v1/namespaces/${name}/limitranges?fieldManager=creator`, {
          method: 'POST',
          body: { metadata: { name: 'l' }, spec: { limits: [{ type: 'Pod', max: { cpu: '1' } }] } },
        });
        assert.equal(limits.status, 201, limits.body);
        assert.deepEqual((limits.json.metadata.managedFields as Json[])[0]?.fieldsV1, { 'f:spec': { 'f:limits': {} } });
        await call(`/api/v1/namespaces/${name}`, { method: 'DELETE' });
      });

      it('an emptied label map is no field: not stored, and no longer owned', async () => {
        const ns = await namespace();
        await call(`${sa(ns)}?fieldManager=poster`, { method: 'POST', body: { metadata: { name: 'e', labels: { a: '1' }, finalizers: [] } } });
        const emptied = await patch(`${sa(ns)}/e`, 'application/merge-patch+json', '{"metadata":{"labels":{"a":null}}}', '?fieldManager=patcher');
        assert.equal(emptied.status, 200, emptied.body);
        assert.equal(emptied.json.metadata.labels, undefined, emptied.body);
        assert.equal(emptied.json.metadata.finalizers, undefined, emptied.body);
        const managers = (emptied.json.metadata.managedFields as Json[] | undefined ?? []).map((e) => e.manager);
        assert.ok(!managers.includes('poster'), emptied.body);
      });

      it('apply: an undeclared field is warned about and dropped, never owned', async () => {
        const ns = await namespace();
        const body = `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: odd\n  labels: {a: b}\nbogus: 1\n`;
        const first = await patch(`${sa(ns)}/odd`, 'application/apply-patch+yaml', body, '?fieldManager=m');
        assert.equal(first.status, 201, first.body);
        assert.match(String(first.headers.warning), /unknown field \\"bogus\\"/);
        assert.equal(first.json.bogus, undefined);
        const entry = (first.json.metadata.managedFields as Json[]).find((e) => e.manager === 'm');
        assert.deepEqual(entry?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:a': {} } } });
        const again = await patch(`${sa(ns)}/odd`, 'application/apply-patch+yaml', body, '?fieldManager=m');
        assert.equal(again.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
      });

      it('a patch may not rename or move the object: 400, whatever the patch type', async () => {
        const ns = await namespace();
        await call(sa(ns), { method: 'POST', body: { metadata: { name: 'fixed' } } });
        const renamed = await patch(`${sa(ns)}/fixed`, 'application/merge-patch+json', '{"metadata":{"name":"other"}}');
        expectStatus(renamed, 400, 'BadRequest');
        assert.equal(renamed.json.message, 'the name of the object (other) does not match the name on the URL (fixed)');
        expectStatus(await patch(`${sa(ns)}/fixed`, 'application/json-patch+json', '[{"op":"replace","path":"/metadata/name","value":"x"}]'), 400, 'BadRequest');
        const moved = await patch(`${sa(ns)}/fixed`, 'application/strategic-merge-patch+json', '{"metadata":{"namespace":"elsewhere"}}');
        expectStatus(moved, 400, 'BadRequest');
        assert.equal(moved.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
        const applyElsewhere = `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: fresh\n  namespace: elsewhere\n`;
        expectStatus(await patch(`${sa(ns)}/fresh`, 'application/apply-patch+yaml', applyElsewhere, '?fieldManager=m'), 400, 'BadRequest');
        expectStatus(await call(`${sa(ns)}/fresh`), 404, 'NotFound');
      });

      it('json, merge and strategic merge patches', async () => {
        const ns = await namespace();
        await call(sa(ns), { method: 'POST', body: { metadata: { name: 'p', labels: { a: '1' } }, secrets: [{ name: 's1' }] } });
        const json = await patch(`${sa(ns)}/p`, 'application/json-patch+json', '[{"op":"add","path":"/metadata/labels/b","value":"2"},{"op":"test","path":"/metadata/labels/a","value":"1"}]');
        assert.equal(json.status, 200, json.body);
        assert.deepEqual(json.json.metadata.labels, { a: '1', b: '2' });
        const merge = await patch(`${sa(ns)}/p`, 'application/merge-patch+json', '{"metadata":{"labels":{"a":null}}}');
        assert.deepEqual(merge.json.metadata.labels, { b: '2' });
        // Strategic merge: secrets merge on name, where a merge patch would replace the list.
        const strategic = await patch(`${sa(ns)}/p`, 'application/strategic-merge-patch+json', '{"secrets":[{"name":"s2"}]}');
        assert.equal(strategic.status, 200, strategic.body);
        assert.deepEqual(strategic.json.secrets.map((s: Json) => s.name).sort(), ['s1', 's2']);
        const replaced = await patch(`${sa(ns)}/p`, 'application/merge-patch+json', '{"secrets":[{"name":"s3"}]}');
        assert.deepEqual(replaced.json.secrets, [{ name: 's3' }]);
      });

      it('a failed test is 422 and stores nothing; a stale resourceVersion is 409; bad bodies 400; other types 415', async () => {
        const ns = await namespace();
        const created = await call(sa(ns), { method: 'POST', body: { metadata: { name: 'q', labels: { a: '1' } } } });
        const failed = await patch(`${sa(ns)}/q`, 'application/json-patch+json', '[{"op":"test","path":"/metadata/labels/a","value":"2"},{"op":"add","path":"/metadata/labels/c","value":"3"}]');
        expectStatus(failed, 422);
        const badPath = await patch(`${sa(ns)}/q`, 'application/json-patch+json', '[{"op":"replace","path":"/nothing/here","value":1}]');
        expectStatus(badPath, 422);
        assert.equal((await call(`${sa(ns)}/q`)).json.metadata.labels.c, undefined);
        await patch(`${sa(ns)}/q`, 'application/merge-patch+json', '{"metadata":{"labels":{"x":"y"}}}');
        const stale = await patch(`${sa(ns)}/q`, 'application/merge-patch+json', JSON.stringify({ metadata: { resourceVersion: created.json.metadata.resourceVersion, labels: { z: '1' } } }));
        expectStatus(stale, 409, 'Conflict');
        expectStatus(await patch(`${sa(ns)}/q`, 'application/merge-patch+json', '{"metadata":'), 400, 'BadRequest');
        expectStatus(await patch(`${sa(ns)}/q`, 'text/plain', '{}'), 415);
        const dry = await patch(`${sa(ns)}/q`, 'application/merge-patch+json', '{"metadata":{"labels":{"dry":"run"}}}', '?dryRun=All');
        assert.equal(dry.json.metadata.labels.dry, 'run');
        assert.equal((await call(`${sa(ns)}/q`)).json.metadata.labels.dry, undefined);
      });

      it('apply creates, records ownership, shares equal values and conflicts on different ones', async () => {
        const ns = await namespace();
        const body = (labels: Record<string, string>) =>
          JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'applied', labels } });
        const first = await patch(`${sa(ns)}/applied`, 'application/apply-patch+yaml', body({ team: 'a' }), '?fieldManager=alice');
        assert.equal(first.status, 201, first.body);
        assert.deepEqual(
          first.json.metadata.managedFields.map((e: Json) => [e.manager, e.operation, e.fieldsType]),
          [['alice', 'Apply', 'FieldsV1']],
        );
        assert.deepEqual(first.json.metadata.managedFields[0].fieldsV1, { 'f:metadata': { 'f:labels': { 'f:team': {} } } });
        const shared = await patch(`${sa(ns)}/applied`, 'application/apply-patch+yaml', body({ team: 'a' }), '?fieldManager=bob');
        assert.equal(shared.status, 200, shared.body);
        assert.equal(shared.json.metadata.managedFields.length, 2);
        const conflict = await patch(`${sa(ns)}/applied`, 'application/apply-patch+yaml', body({ team: 'b' }), '?fieldManager=carol');
        expectStatus(conflict, 409, 'Conflict');
        assert.ok(conflict.json.details.causes.some((c: Json) => c.field === '.metadata.labels.team'), conflict.body);
        const forced = await patch(`${sa(ns)}/applied`, 'application/apply-patch+yaml', body({ team: 'b' }), '?fieldManager=carol&force=true');
        assert.equal(forced.status, 200, forced.body);
        assert.equal(forced.json.metadata.labels.team, 'b');
        const owners = forced.json.metadata.managedFields.filter((e: Json) => JSON.stringify(e.fieldsV1 ?? {}).includes('f:team'));
        assert.deepEqual(owners.map((e: Json) => e.manager), ['carol']);
      });

      it('apply needs a fieldManager (422) and may not carry managedFields (400); force only with apply', async () => {
        const ns = await namespace();
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'm' } });
        expectStatus(await patch(`${sa(ns)}/m`, 'application/apply-patch+yaml', body), 422, 'Invalid');
        const withFields = JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'm', managedFields: [{ manager: 'x' }] } });
        expectStatus(await patch(`${sa(ns)}/m`, 'application/apply-patch+yaml', withFields, '?fieldManager=a'), 400, 'BadRequest');
        await call(sa(ns), { method: 'POST', body: { metadata: { name: 'n' } } });
        expectStatus(await patch(`${sa(ns)}/n`, 'application/merge-patch+json', '{}', '?force=true'), 422, 'Invalid');
      });

      it('an update takes ownership with its manager; a JSON patch to [{}] resets managedFields', async () => {
        const ns = await namespace();
        const created = await call(`${sa(ns)}?fieldManager=creator`, { method: 'POST', body: { metadata: { name: 'u', labels: { a: '1' } } } });
        assert.deepEqual(created.json.metadata.managedFields.map((e: Json) => [e.manager, e.operation]), [['creator', 'Update']]);
        const reset = await patch(`${sa(ns)}/u`, 'application/json-patch+json', '[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]');
        assert.equal(reset.status, 200, reset.body);
        assert.equal(reset.json.metadata.managedFields, undefined);
      });
    });

    describe('validation of each kind over HTTP (422, one cause per bad field)', () => {
      const rbacGroup = () => `rbac.authorization.${target.domain}`;
      // [title, collection path (NS is replaced by a fresh namespace), body, fields expected among the causes]
      const cases: Array<[string, string, () => Json, string[]]> = [
        ['Namespace: a name that is not a DNS label', '/api/v1/namespaces', () => ({ metadata: { name: 'Not.A.Label' } }), ['metadata.name']],
        ['ServiceAccount: a name that is not a DNS subdomain', '/api/v1/namespaces/NS/serviceaccounts', () => ({ metadata: { name: 'UPPER' } }), ['metadata.name']],
        ['ServiceAccount: bad labels and annotations', '/api/v1/namespaces/NS/serviceaccounts', () => ({
          metadata: { name: 'sa', labels: { 'bad key!': 'v', ok: 'bad value!' }, annotations: { '/x': 'y' } },
        }), ['metadata.labels', 'metadata.annotations']],
        ['ServiceAccount: two controller owner references', '/api/v1/namespaces/NS/serviceaccounts', () => ({
          metadata: {
            name: 'owned',
            ownerReferences: [
              { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'u1', controller: true },
              { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: 'u2', controller: true },
            ],
          },
        }), ['metadata.ownerReferences']],
        ['LimitRange: a limit without a type', '/api/v1/namespaces/NS/limitranges', () => ({
          metadata: { name: 'l' }, spec: { limits: [{ max: { cpu: '1' } }] },
        }), ['spec.limits[0].type']],
        ['LimitRange: min above max', '/api/v1/namespaces/NS/limitranges', () => ({
          metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] },
        }), ['spec.limits[0].min[cpu]']],
        ['LimitRange: default above max', '/api/v1/namespaces/NS/limitranges', () => ({
          metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', default: { memory: '2Gi' }, max: { memory: '1Gi' } }] },
        }), ['spec.limits[0].default[memory]']],
        ['LimitRange: maxLimitRequestRatio below 1', '/api/v1/namespaces/NS/limitranges', () => ({
          metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }] },
        }), ['spec.limits[0].maxLimitRequestRatio[cpu]']],
        ['IPAddress: a name with leading zeros', `/apis/networking.DOMAIN/v1alpha1/ipaddresses`, () => ({
          metadata: { name: '10.01.0.1' }, spec: { parentRef: { resource: 'services', name: 's' } },
        }), ['metadata.name']],
        ['IPAddress: an uncompressed IPv6 name', `/apis/networking.DOMAIN/v1alpha1/ipaddresses`, () => ({
          metadata: { name: '2001:db8:0:0:0:0:0:1' }, spec: { parentRef: { resource: 'services', name: 's' } },
        }), ['metadata.name']],
        ['IPAddress: parentRef without resource and name', `/apis/networking.DOMAIN/v1alpha1/ipaddresses`, () => ({
          metadata: { name: '10.0.0.1' }, spec: { parentRef: {} },
        }), ['spec.parentRef.resource', 'spec.parentRef.name']],
        ['Role: a rule without verbs', '/apis/rbac.authorization.DOMAIN/v1/namespaces/NS/roles', () => ({
          metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'] }],
        }), ['rules[0].verbs']],
        ['Role: non-resource URLs in a namespaced rule', '/apis/rbac.authorization.DOMAIN/v1/namespaces/NS/roles', () => ({
          metadata: { name: 'r' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        }), ['rules[0].nonResourceURLs']],
        ['ClusterRole: resources and non-resource URLs in one rule', '/apis/rbac.authorization.DOMAIN/v1/clusterroles', () => ({
          metadata: { name: `mixed-${nsCounter}` }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/x'] }],
        }), ['rules[0].nonResourceURLs']],
        ['ClusterRole: a resource rule without apiGroups', '/apis/rbac.authorization.DOMAIN/v1/clusterroles', () => ({
          metadata: { name: `nogroups-${nsCounter}` }, rules: [{ verbs: ['get'], resources: ['pods'] }],
        }), ['rules[0].apiGroups']],
        ['RoleBinding: roleRef kind not Role or ClusterRole', '/apis/rbac.authorization.DOMAIN/v1/namespaces/NS/rolebindings', () => ({
          metadata: { name: 'b' }, roleRef: { apiGroup: rbacGroup(), kind: 'Binding', name: 'x' }, subjects: [],
        }), ['roleRef.kind']],
        ['RoleBinding: a subject of an unknown kind', '/apis/rbac.authorization.DOMAIN/v1/namespaces/NS/rolebindings', () => ({
          metadata: { name: 'b' }, roleRef: { apiGroup: rbacGroup(), kind: 'Role', name: 'x' }, subjects: [{ kind: 'Robot', name: 'r2' }],
        }), ['subjects[0].kind']],
        ['RoleBinding: a User subject with the core group', '/apis/rbac.authorization.DOMAIN/v1/namespaces/NS/rolebindings', () => ({
          metadata: { name: 'b' }, roleRef: { apiGroup: rbacGroup(), kind: 'Role', name: 'x' }, subjects: [{ kind: 'User', name: 'u', apiGroup: 'example.com' }],
        }), ['subjects[0].apiGroup']],
        ['ClusterRoleBinding: roleRef to a Role', '/apis/rbac.authorization.DOMAIN/v1/clusterrolebindings', () => ({
          metadata: { name: `crb-${nsCounter}` }, roleRef: { apiGroup: rbacGroup(), kind: 'Role', name: 'x' },
        }), ['roleRef.kind']],
        ['ClusterRoleBinding: roleRef missing', '/apis/rbac.authorization.DOMAIN/v1/clusterrolebindings', () => ({
          metadata: { name: `crb2-${nsCounter}` },
        }), ['roleRef.kind', 'roleRef.name']],
      ];
      for (const [title, collection, body, fields] of cases) {
        it(title, async () => {
          const path = collection.replace('DOMAIN', target.domain).replace('NS', collection.includes('NS') ? await namespace() : '');
          const response = await call(path, { method: 'POST', body: body() });
          expectStatus(response, 422, 'Invalid');
          const causes = (response.json.details.causes as Json[]).map((cause) => cause.field);
          for (const field of fields) assert.ok(causes.includes(field), `${field} in ${JSON.stringify(causes)}`);
        });
      }

      it('RoleBinding: roleRef cannot change on update', async () => {
        const ns = await namespace();
        const path = `${rbac}/namespaces/${ns}/rolebindings`;
        const created = await call(path, {
          method: 'POST',
          body: { metadata: { name: 'b' }, roleRef: { apiGroup: rbacGroup(), kind: 'Role', name: 'x' } },
        });
        assert.equal(created.status, 201, created.body);
        const changed = { ...created.json, roleRef: { apiGroup: rbacGroup(), kind: 'Role', name: 'y' } };
        const response = await call(`${path}/b`, { method: 'PUT', body: changed });
        expectStatus(response, 422, 'Invalid');
        assert.ok((response.json.details.causes as Json[]).some((cause) => cause.field === 'roleRef'), response.body);
      });
    });

    describe('errors', () => {
      it('405 for a verb the resource does not support', async () => {
        const refused = await call('/api/v1/namespaces', { method: 'DELETE' });
        expectStatus(refused, 405, 'MethodNotAllowed');
        assert.equal(refused.json.message, 'the server does not allow this method on the requested resource');
        expectStatus(await call(`/apis/authorization.${target.domain}/v1/subjectaccessreviews`), 405, 'MethodNotAllowed');
      });

      it('405 for a verb the path form has no route for: create names no object, update and patch name one', async () => {
        const ns = await namespace();
        const accounts = `/api/v1/namespaces/${ns}/serviceaccounts`;
        expectStatus(await call(`${accounts}/named`, { method: 'POST', body: { metadata: { name: 'named' } } }), 405, 'MethodNotAllowed');
        expectStatus(await call(`${accounts}/named`), 404, 'NotFound');
        expectStatus(await call(accounts, { method: 'PUT', body: { metadata: { name: 'named' } } }), 405, 'MethodNotAllowed');
        expectStatus(
          await call(accounts, { method: 'PATCH', body: { metadata: { labels: { a: 'b' } } }, headers: { 'content-type': 'application/merge-patch+json' } }),
          405,
          'MethodNotAllowed',
        );
        expectStatus(await call('/api/v1/serviceaccounts', { method: 'POST', body: { metadata: { name: 'nowhere' } } }), 405, 'MethodNotAllowed');
        // A namespace's finalize is written only; a namespace is not found under another namespace.
        expectStatus(await call(`/api/v1/namespaces/${ns}/finalize`), 405, 'MethodNotAllowed');
        expectStatus(await call(`/api/v1/namespaces/${ns}/namespaces`), 404, 'NotFound');
        expectStatus(await call(`/api/v1/namespaces/${ns}/namespaces/default`), 404, 'NotFound');
        assert.equal((await call(`/api/v1/namespaces/${ns}/status`)).status, 200);
      });

      it('a limit below 1 is no limit, as upstream (no validation)', async () => {
        const ns = await namespace();
        for (const name of ['a', 'b']) await call(roles(ns), { method: 'POST', body: role(name) });
        const all = await call(`${roles(ns)}?limit=-1`);
        assert.equal(all.status, 200, all.body);
        assert.deepEqual(all.json.items.map((item: Json) => item.metadata.name), ['a', 'b']);
        assert.equal(all.json.metadata.continue, undefined);
      });

      it('400 for a watch parameter that is no boolean, rather than a watch', async () => {
        expectStatus(await call('/api/v1/namespaces?watch=sometimes'), 400, 'BadRequest');
      });

      it('413 for a body over 3 MiB', async () => {
        const ns = await namespace();
        const huge = role('huge', { metadata: { annotations: { big: 'x'.repeat(3 * 1024 * 1024) } } });
        expectStatus(await call(roles(ns), { method: 'POST', body: huge }), 413, 'RequestEntityTooLarge');
      });

      it('413 for an object under 3 MiB but over the 1.5 MiB etcd stores; a patch over it only with its managedFields is stored without them', async () => {
        const ns = await namespace();
        // Over etcd's --max-request-bytes (etcd answers InvalidArgument), and over it by more than
        // 512 KiB (its gRPC server refuses the message unread).
        for (const count of [170_000, 260_000]) {
          const resources = Array.from({ length: count }, (_, i) => `r${i}`);
          const big = role('big', { rules: [{ apiGroups: [''], resources, verbs: ['get'] }] });
          const created = await call(roles(ns), { method: 'POST', body: big });
          assert.equal(created.status, 413, created.body.slice(0, 300));
          assert.equal(created.json.reason, 'RequestEntityTooLarge');
        }
        expectStatus(await call(`${roles(ns)}/big`), 404, 'NotFound');
        // 70,000 labels: about 0.9 MB, and as much again in managedFields, which list each key.
        assert.equal((await call(roles(ns), { method: 'POST', body: role('labelled') })).status, 201);
        const labels = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, '']));
        const merge = { 'content-type': 'application/merge-patch+json' };
        const patched = await call(`${roles(ns)}/labelled`, { method: 'PATCH', headers: merge, body: { metadata: { labels } } });
        assert.equal(patched.status, 200, patched.body.slice(0, 500));
        assert.equal(Object.keys(patched.json.metadata.labels).length, 70_000);
        assert.equal(patched.json.metadata.managedFields, undefined);
      });

      it('400 for JSON that does not parse, or a wrongly typed field', async () => {
        const ns = await namespace();
        for (const rawBody of ['', '{"metadata": ']) {
          const broken = await target.server.request(roles(ns), {
            token: target.token,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            rawBody,
          });
          assert.equal(broken.status, 400, broken.body);
        }
        expectStatus(await call(roles(ns), { method: 'POST', body: { ...role('t'), rules: 'no' } }), 400, 'BadRequest');
      });

      it('406 when no requested media type is served', async () => {
        const ns = await namespace();
        expectStatus(await call(roles(ns), { headers: { accept: 'application/vnd.example+cbor' } }), 406, 'NotAcceptable');
      });

      it('415 for a body in a media type the server does not decode', async () => {
        const ns = await namespace();
        expectStatus(await call(roles(ns), { method: 'POST', body: role('m'), headers: { 'content-type': 'text/plain' } }), 415);
      });
    });

    describe('representations (2.4, 4.4)', () => {
      const table = (version = 'v1') => `application/json;as=Table;v=${version};g=meta.${target.domain}`;

      it('a Table of the kind\u2019s columns, or Name and Created At', async () => {
        const ns = await namespace();
        await call(roles(ns), { method: 'POST', body: role('tabled') });
        const roleTable = await call(roles(ns), { headers: { accept: `${table()},application/json` } });
        assert.equal(roleTable.json.kind, 'Table', roleTable.body);
        assert.equal(roleTable.json.apiVersion, `meta.${target.domain}/v1`);
        assert.deepEqual(roleTable.json.columnDefinitions.map((c: Json) => c.name), ['Name', 'Created At']);
        assert.equal(roleTable.json.rows[0].cells[0], 'tabled');
        assert.equal(roleTable.json.rows[0].object.kind, 'PartialObjectMetadata');
        assert.ok(roleTable.json.metadata.resourceVersion);
        const nsTable = await call(`/api/v1/namespaces/${ns}`, { headers: { accept: table() } });
        assert.deepEqual(nsTable.json.columnDefinitions.map((c: Json) => c.name), ['Name', 'Status', 'Age']);
        assert.deepEqual(nsTable.json.rows[0].cells.slice(0, 2), [ns, 'Active']);
        const full = await call(`${roles(ns)}?includeObject=Object`, { headers: { accept: table('v1beta1') } });
        assert.equal(full.json.rows[0].object.kind, 'Role');
        const none = await call(`${roles(ns)}?includeObject=None`, { headers: { accept: table() } });
        assert.equal(none.json.rows[0].object, undefined);
        const bogus = await call(`${roles(ns)}?includeObject=Bogus`, { headers: { accept: table() } });
        expectStatus(bogus, 400, 'BadRequest');
        assert.equal(bogus.json.message, `Unable to convert to Table as requested: includeObject: Invalid value: "Bogus": must be 'Metadata', 'Object', 'None', or empty`);
        // Without a Table asked for, includeObject is not read.
        assert.equal((await call(`${roles(ns)}?includeObject=Bogus`)).status, 200);
      });

      it('every served kind answers a Table', async () => {
        const ns = await namespace();
        const collections = [
          '/api/v1/namespaces',
          `/api/v1/namespaces/${ns}/serviceaccounts`,
          `/api/v1/namespaces/${ns}/limitranges`,
          `/apis/coordination.${target.domain}/v1/namespaces/${ns}/leases`,
          `${rbac}/namespaces/${ns}/roles`,
          `${rbac}/namespaces/${ns}/rolebindings`,
          `${rbac}/clusterroles`,
          `${rbac}/clusterrolebindings`,
        ];
        for (const path of collections) {
          const response = await call(path, { headers: { accept: table() } });
          assert.equal(response.json.kind, 'Table', `${path}: ${response.body.slice(0, 200)}`);
          assert.equal(response.json.columnDefinitions[0].name, 'Name', path);
        }
        const bindings = await call(`${rbac}/clusterrolebindings`, { headers: { accept: table() } });
        assert.deepEqual(
          bindings.json.columnDefinitions.map((c: Json) => c.name),
          ['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts'],
        );
      });

      it('metadata-only objects and lists', async () => {
        const ns = await namespace();
        await call(roles(ns), { method: 'POST', body: role('meta', { metadata: { labels: { a: 'b' } } }) });
        const list = await call(roles(ns), { headers: { accept: `application/json;as=PartialObjectMetadataList;g=meta.${target.domain};v=v1` } });
        assert.equal(list.json.kind, 'PartialObjectMetadataList');
        assert.equal(list.json.items[0].metadata.labels.a, 'b');
        assert.equal(list.json.items[0].rules, undefined);
        const one = await call(`${roles(ns)}/meta`, { headers: { accept: `application/json;as=PartialObjectMetadata;g=meta.${target.domain};v=v1` } });
        assert.equal(one.json.kind, 'PartialObjectMetadata');
      });

      it('YAML responses and request bodies', async () => {
        const ns = await namespace();
        const yamlBody = `apiVersion: rbac.authorization.${target.domain}/v1\nkind: Role\nmetadata:\n  name: from-yaml\nrules: []\n`;
        const created = await target.server.request(roles(ns), { token: target.token, method: 'POST', headers: { 'content-type': 'application/yaml' }, rawBody: yamlBody });
        assert.equal(created.status, 201, created.body);
        const got = await call(`${roles(ns)}/from-yaml`, { headers: { accept: 'application/yaml' } });
        assert.match(String(got.headers['content-type']), /^application\/yaml/);
        assert.match(got.body, /^apiVersion: rbac\.authorization\./m);
        assert.match(got.body, /name: from-yaml/);
        const duplicated = await target.server.request(`${roles(ns)}?fieldValidation=Strict`, {
          token: target.token,
          method: 'POST',
          headers: { 'content-type': 'application/yaml' },
          rawBody: `${yamlBody}rules: []\n`.replace('from-yaml', 'dup-yaml'),
        });
        assert.equal(duplicated.status, 400, duplicated.body);
        assert.match(duplicated.body, /duplicate field \\"rules\\"/);
      });

      it('gzip for large lists when the client accepts it', async () => {
        const ns = await namespace();
        const annotations = { big: 'y'.repeat(60 * 1024) };
        for (const name of ['g1', 'g2', 'g3']) await call(roles(ns), { method: 'POST', body: role(name, { metadata: { annotations } }) });
        const zipped = await target.server.request(roles(ns), { token: target.token, headers: { 'accept-encoding': 'gzip' } });
        assert.equal(zipped.headers['content-encoding'], 'gzip');
        const plain = await target.server.request(roles(ns), { token: target.token });
        assert.equal(plain.headers['content-encoding'], undefined);
        const small = await target.server.request(`${roles(ns)}/g1`, { token: target.token, headers: { 'accept-encoding': 'gzip' } });
        assert.equal(small.headers['content-encoding'], undefined, 'one object is under the 128 KiB threshold');
      });

      it('Protobuf: responses, request bodies, list, delete Status, watch frames; a body without the prefix is 400', async () => {
        const ns = await namespace();
        const protobuf = target.domain === 'k8s.io' ? 'application/vnd.kubernetes.protobuf' : `application/vnd.${target.domain.split('.')[0]}.protobuf`;
        const body = encodeObject({ apiVersion: `rbac.authorization.${target.domain}/v1`, kind: 'Role', metadata: { name: 'wire' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
        const created = await target.server.request(roles(ns), {
          token: target.token,
          method: 'POST',
          headers: { 'content-type': protobuf, accept: protobuf },
          rawBody: body,
        });
        assert.equal(created.status, 201, created.body);
        assert.equal(created.headers['content-type'], protobuf);
        assert.deepEqual([...created.bytes.subarray(0, 4)], [...PROTOBUF_PREFIX]);
        const role = decodeObject(created.bytes) as Json;
        assert.equal(role.metadata.name, 'wire');
        assert.deepEqual(role.rules[0].verbs, ['get']);
        const watch = await target.server.watch(`${roles(ns)}?watch=1&resourceVersion=${role.metadata.resourceVersion}`, { token: target.token, headers: { accept: protobuf } });
        const list = await target.server.request(roles(ns), { token: target.token, headers: { accept: `${protobuf}, application/json` } });
        const decodedList = decodeObject(list.bytes) as Json;
        assert.equal(decodedList.kind, 'RoleList');
        assert.deepEqual(decodedList.items.map((item: Json) => item.metadata.name), ['wire']);
        const deleted = await target.server.request(`${roles(ns)}/wire`, { token: target.token, method: 'DELETE', headers: { accept: protobuf } });
        assert.equal((decodeObject(deleted.bytes) as Json).status, 'Success');
        watch.close();
        const missing = await target.server.request(roles(ns), {
          token: target.token,
          method: 'POST',
          headers: { 'content-type': protobuf },
          rawBody: body.subarray(4),
        });
        expectStatus({ ...missing, json: JSON.parse(missing.body) }, 400, 'BadRequest');
        // An error answers in the negotiated representation too.
        const notFound = await target.server.request(`${roles(ns)}/nothing`, { token: target.token, headers: { accept: protobuf } });
        assert.equal(notFound.status, 404);
        assert.equal(notFound.headers['content-type'], protobuf);
        const status = decodeObject(notFound.bytes) as Json;
        assert.deepEqual([status.kind, status.code, status.reason], ['Status', 404, 'NotFound']);
      });

      it('Protobuf watch: length-framed WatchEvents', async () => {
        const ns = await namespace();
        const protobuf = target.domain === 'k8s.io' ? 'application/vnd.kubernetes.protobuf' : `application/vnd.${target.domain.split('.')[0]}.protobuf`;
        const start = (await call(roles(ns))).json.metadata.resourceVersion;
        const streamed = target.server.request(`${roles(ns)}?watch=1&resourceVersion=${start}&timeoutSeconds=1`, { token: target.token, headers: { accept: protobuf } });
        await new Promise((resolve) => setTimeout(resolve, 200));
        await call(roles(ns), { method: 'POST', body: role('framed') });
        const response = await streamed;
        assert.equal(response.headers['content-type'], `${protobuf};stream=watch`);
        const events = decodeWatchFrames(response.bytes) as Json[];
        assert.equal(events[0].type, 'ADDED');
        assert.equal(events[0].object.metadata.name, 'framed');
      });

      it('Protobuf: a Lease and a LeaseList, MicroTimes to the microsecond', async () => {
        const ns = await namespace();
        const protobuf = target.domain === 'k8s.io' ? 'application/vnd.kubernetes.protobuf' : `application/vnd.${target.domain.split('.')[0]}.protobuf`;
        const leases = `/apis/coordination.${target.domain}/v1/namespaces/${ns}/leases`;
        const spec = { holderIdentity: 'node-a', leaseDurationSeconds: 40, acquireTime: '2024-05-01T10:00:00.000001Z', renewTime: '2024-05-01T10:00:39.654321Z', leaseTransitions: 0 };
        const created = await call(leases, { method: 'POST', body: { apiVersion: `coordination.${target.domain}/v1`, kind: 'Lease', metadata: { name: 'holder' }, spec } });
        assert.equal(created.status, 201, created.body);
        const got = await target.server.request(`${leases}/holder`, { token: target.token, headers: { accept: protobuf } });
        assert.equal(got.status, 200);
        assert.equal(got.headers['content-type'], protobuf);
        assert.deepEqual([...got.bytes.subarray(0, 4)], [...PROTOBUF_PREFIX]);
        const lease = decodeObject(got.bytes) as Json;
        assert.deepEqual([lease.apiVersion, lease.kind, lease.metadata.name], [`coordination.${target.domain}/v1`, 'Lease', 'holder']);
        assert.deepEqual(lease.spec, spec);
        assert.deepEqual(lease.metadata, created.json.metadata);
        const list = await target.server.request(leases, { token: target.token, headers: { accept: protobuf } });
        const decodedList = decodeObject(list.bytes) as Json;
        assert.equal(decodedList.kind, 'LeaseList');
        assert.deepEqual(decodedList.items.map((item: Json) => item.spec.renewTime), ['2024-05-01T10:00:39.654321Z']);
        // And a Protobuf body: an update written as a Go client writes it.
        const renewed = encodeObject({ ...lease, spec: { ...spec, renewTime: '2024-05-01T10:00:45.000002Z' } });
        const updated = await target.server.request(`${leases}/holder`, {
          token: target.token,
          method: 'PUT',
          headers: { 'content-type': protobuf, accept: 'application/json' },
          rawBody: renewed,
        });
        assert.equal(updated.status, 200, updated.body);
        assert.equal(JSON.parse(updated.body).spec.renewTime, '2024-05-01T10:00:45.000002Z');
      });

      it('a watch can stream Table rows', async () => {
        const ns = await namespace();
        const watch = await target.server.watch(`${roles(ns)}?watch=1`, { token: target.token, headers: { accept: table() } });
        await call(roles(ns), { method: 'POST', body: role('row') });
        const event = await watch.next();
        assert.equal(event?.type, 'ADDED');
        assert.equal(event?.object.kind, 'Table');
        assert.equal((event?.object.rows as Json[])[0]!.cells[0], 'row');
        watch.close();
      });
    });

    describe('fieldValidation and dryRun', () => {
      const withExtras = (name: string): string =>
        `{"apiVersion":"rbac.authorization.${target.domain}/v1","kind":"Role","metadata":{"name":"${name}","name":"${name}","bogus":1},"rules":[],"extra":true}`;
      const post = (path: string, text: string) =>
        target.server.request(path, { token: target.token, method: 'POST', headers: { 'content-type': 'application/json' }, rawBody: text });

      it('Strict rejects with 400 listing every unknown and duplicate field', async () => {
        const ns = await namespace();
        const response = await post(`${roles(ns)}?fieldValidation=Strict`, withExtras('strict'));
        assert.equal(response.status, 400, response.body);
        const message = JSON.parse(response.body).message as string;
        for (const part of ['unknown field "metadata.bogus"', 'unknown field "extra"', 'duplicate field "metadata.name"']) {
          assert.ok(message.includes(part), message);
        }
        assert.equal((await call(`${roles(ns)}/strict`)).status, 404);
      });

      it('Warn (the default) succeeds with one Warning header per field', async () => {
        const ns = await namespace();
        for (const query of ['?fieldValidation=Warn', '']) {
          const name = `warn${query.length}`;
          const response = await post(`${roles(ns)}${query}`, withExtras(name));
          assert.equal(response.status, 201, response.body);
          const warnings = ([] as string[]).concat(response.headers.warning ?? []).join('\n');
          assert.match(warnings, /299 - "unknown field \\"metadata.bogus\\""/);
          assert.match(warnings, /299 - "unknown field \\"extra\\""/);
          assert.match(warnings, /299 - "duplicate field \\"metadata.name\\""/);
          assert.equal(JSON.parse(response.body).extra, undefined, 'unknown fields are dropped');
        }
      });

      it('Ignore succeeds silently; another value is 400', async () => {
        const ns = await namespace();
        const response = await post(`${roles(ns)}?fieldValidation=Ignore`, withExtras('ignored'));
        assert.equal(response.status, 201, response.body);
        assert.equal(response.headers.warning, undefined);
        const loose = await post(`${roles(ns)}?fieldValidation=Loose`, withExtras('loose'));
        assert.equal(loose.status, 422, loose.body);
        assert.equal(
          (JSON.parse(loose.body) as Json).message,
          `CreateOptions.meta.${target.domain} "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"`,
        );
      });

      it('fieldManager: at most 128 printable characters, else 422', async () => {
        const ns = await namespace();
        assert.equal((await call(`${roles(ns)}?fieldManager=tool`, { method: 'POST', body: role('managed') })).status, 201);
        expectStatus(await call(`${roles(ns)}?fieldManager=${'m'.repeat(129)}`, { method: 'POST', body: role('long') }), 422, 'Invalid');
        const bell = await call(`${roles(ns)}?fieldManager=a%07b`, { method: 'POST', body: role('bell') });
        expectStatus(bell, 422, 'Invalid');
        assert.equal(bell.json.message, `CreateOptions.meta.${target.domain} "" is invalid: fieldManager: Invalid value: "a\\ab": invalid character U+0007 (at position 1)`);
        assert.equal((await call(`${roles(ns)}?fieldManager=${encodeURIComponent('é tool')}`, { method: 'POST', body: role('accented') })).status, 201);
      });

      it('dryRun=All runs every stage but storage; an empty value is a real request; other values are 422', async () => {
        const ns = await namespace();
        const dry = await call(`${roles(ns)}?dryRun=All`, { method: 'POST', body: role('dry') });
        assert.equal(dry.status, 201, dry.body);
        assert.equal(dry.json.metadata.name, 'dry');
        expectStatus(await call(`${roles(ns)}/dry`), 404, 'NotFound');
        expectStatus(await call(`${roles(ns)}?dryRun=All`, { method: 'POST', body: role('bad%name') }), 422, 'Invalid');
        const some = await call(`${roles(ns)}?dryRun=Some`, { method: 'POST', body: role('dry') });
        expectStatus(some, 422, 'Invalid');
        assert.equal(some.json.message, `CreateOptions.meta.${target.domain} "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"`);
        expectStatus(await call(`${roles(ns)}/dry?dryRun=Some`, { method: 'PUT', body: role('dry') }), 422, 'Invalid');
        // Spec 4.10: an empty value asks for no dry run.
        assert.equal((await call(`${roles(ns)}?dryRun`, { method: 'POST', body: role('real') })).status, 201);
        assert.equal((await call(`${roles(ns)}/real`)).status, 200);
        // A dry run of a name already taken is refused as the real create would be.
        expectStatus(await call(`${roles(ns)}?dryRun=All`, { method: 'POST', body: role('real') }), 409, 'AlreadyExists');
        await call(roles(ns), { method: 'POST', body: role('kept') });
        assert.equal((await call(`${roles(ns)}/kept?dryRun=All`, { method: 'DELETE' })).status, 200);
        assert.equal((await call(`${roles(ns)}/kept`)).status, 200);
        const badDelete = await call(`${roles(ns)}/kept?dryRun=Some&propagationPolicy=Sideways`, { method: 'DELETE' });
        expectStatus(badDelete, 422, 'Invalid');
        assert.equal(
          badDelete.json.message,
          `DeleteOptions.meta.${target.domain} "" is invalid: [propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil", dryRun: Unsupported value: []string{"Some"}: supported values: "All"]`,
        );
        assert.equal((await call(`${roles(ns)}/kept`)).status, 200);
      });

      it('dryRun=All on PUT, every PATCH type, apply, DELETE and DELETE of a collection: the real answer, nothing stored', async () => {
        const ns = await namespace();
        const rules = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }];
        const plain = await call(roles(ns), { method: 'POST', body: role('plain', { metadata: { labels: { keep: 'yes' } } }) });
        assert.equal(plain.status, 201, plain.body);
        const held = await call(roles(ns), {
          method: 'POST',
          body: role('held', { metadata: { labels: { keep: 'yes' }, finalizers: [`${target.domain}/hold`] } }),
        });
        assert.equal(held.status, 201, held.body);
        const stored = async (): Promise<Json[]> => {
          const list = await call(roles(ns));
          assert.equal(list.status, 200, list.body);
          return list.json.items;
        };
        const before = await stored();
        assert.deepEqual(before.map((item) => item.metadata.name), ['held', 'plain']);
        // Every write to this namespace's roles from here on is seen by this watch.
        const watch = await target.server.watch(`${roles(ns)}?watch=1&resourceVersion=${held.json.metadata.resourceVersion}`, { token: target.token });
        assert.equal(watch.status, 200);
        const patch = (name: string, type: string, body: string, query = '') =>
          target.server
            .request(`${roles(ns)}/${name}?dryRun=All${query}`, { token: target.token, method: 'PATCH', headers: { 'content-type': type }, rawBody: body })
            .then((response) => ({ ...response, json: JSON.parse(response.body || '{}') as Json }));

        const put = await call(`${roles(ns)}/plain?dryRun=All`, { method: 'PUT', body: { ...plain.json, rules: [{ ...rules[0], verbs: ['get', 'put-dry'] }] } });
        assert.equal(put.status, 200, put.body);
        assert.deepEqual(put.json.rules[0].verbs, ['get', 'put-dry']);
        assert.equal(put.json.metadata.uid, plain.json.metadata.uid);
        // Roles may be created by PUT: a dry one answers 201 as the real one would.
        const putNew = await call(`${roles(ns)}/put-new?dryRun=All`, { method: 'PUT', body: role('put-new') });
        assert.equal(putNew.status, 201, putNew.body);
        assert.equal(putNew.json.metadata.name, 'put-new');
        // As the real PUT, a dry one with a stale resourceVersion is a conflict.
        const stale = { ...plain.json, metadata: { ...plain.json.metadata, resourceVersion: '1' } };
        expectStatus(await call(`${roles(ns)}/plain?dryRun=All`, { method: 'PUT', body: stale }), 409, 'Conflict');

        const patches: [string, string, string][] = [
          ['application/json-patch+json', '[{"op":"add","path":"/metadata/labels/via","value":"json"}]', 'json'],
          ['application/merge-patch+json', '{"metadata":{"labels":{"via":"merge"}}}', 'merge'],
          ['application/strategic-merge-patch+json', '{"metadata":{"labels":{"via":"strategic"}}}', 'strategic'],
        ];
        for (const [type, body, via] of patches) {
          const patched = await patch('plain', type, body);
          assert.equal(patched.status, 200, `${type}: ${patched.body}`);
          assert.deepEqual(patched.json.metadata.labels, { keep: 'yes', via }, type);
        }
        const apply = (name: string, labels: Record<string, string>) =>
          JSON.stringify({ apiVersion: `rbac.authorization.${target.domain}/v1`, kind: 'Role', metadata: { name, labels }, rules });
        const applied = await patch('plain', 'application/apply-patch+yaml', apply('plain', { via: 'apply' }), '&fieldManager=applier');
        assert.equal(applied.status, 200, applied.body);
        assert.equal(applied.json.metadata.labels.via, 'apply');
        assert.ok((applied.json.metadata.managedFields as Json[]).some((entry) => entry.manager === 'applier'), applied.body);
        const appliedNew = await patch('applied-new', 'application/apply-patch+yaml', apply('applied-new', { via: 'apply' }), '&fieldManager=applier');
        assert.equal(appliedNew.status, 201, appliedNew.body);
        assert.equal(appliedNew.json.metadata.name, 'applied-new');

        const deleted = await call(`${roles(ns)}/plain?dryRun=All`, { method: 'DELETE' });
        assert.equal(deleted.status, 200, deleted.body);
        assert.equal(deleted.json.status, 'Success', deleted.body);
        assert.equal(deleted.json.details.uid, plain.json.metadata.uid);
        // Held by a finalizer, the real DELETE would answer the object marked for deletion.
        const marked = await call(`${roles(ns)}/held?dryRun=All`, { method: 'DELETE' });
        assert.equal(marked.status, 200, marked.body);
        assert.equal(marked.json.kind, 'Role', marked.body);
        assert.match(String(marked.json.metadata.deletionTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, marked.body);

        const collection = await call(`${roles(ns)}?dryRun=All&labelSelector=keep%3Dyes`, { method: 'DELETE' });
        assert.equal(collection.status, 200, collection.body);
        assert.equal(collection.json.kind, 'RoleList', collection.body);
        assert.deepEqual(collection.json.items.map((item: Json) => item.metadata.name), ['held', 'plain']);

        // Nothing was stored: the same objects at the same resourceVersions, none added ...
        const after = await stored();
        assert.deepEqual(after, before);
        assert.equal(after.find((item) => item.metadata.name === 'held')?.metadata.deletionTimestamp, undefined);
        expectStatus(await call(`${roles(ns)}/put-new`), 404, 'NotFound');
        expectStatus(await call(`${roles(ns)}/applied-new`), 404, 'NotFound');
        // ... and no event: the first the watch sees is the real write that follows.
        assert.equal((await call(roles(ns), { method: 'POST', body: role('marker') })).status, 201);
        const first = await watch.next();
        assert.deepEqual([first?.type, first?.object.metadata.name], ['ADDED', 'marker']);
        watch.close();
        // The finalizer released for real, the namespace can go.
        const released = await call(`${roles(ns)}/held`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, rawBody: '{"metadata":{"finalizers":null}}' });
        assert.equal(released.status, 200, released.body);
      });
    });

    describe('resourceVersion semantics (4.6)', () => {
      let ns: string;
      let first: string;
      let latest: string;
      before(async () => {
        ns = await namespace();
        for (const name of ['a', 'b', 'c', 'd']) {
          const created = await call(roles(ns), { method: 'POST', body: role(name) });
          if (name === 'a') first = created.json.metadata.resourceVersion;
          latest = created.json.metadata.resourceVersion;
        }
      });
      const list = (query: string) => call(`${roles(ns)}?${query}`);
      const rvOf = (response: { json: Json }): number => Number(response.json.metadata.resourceVersion);

      const cases: Array<[string, () => string, (response: Response & { json: Json }) => void]> = [
        ['unset match, no limit, rv unset: most recent', () => '', (r) => assert.ok(rvOf(r) >= Number(latest))],
        ['unset match, no limit, rv 0: any', () => 'resourceVersion=0', (r) => assert.equal(r.status, 200)],
        ['unset match, no limit, rv R: not older than', () => `resourceVersion=${first}`, (r) => assert.ok(rvOf(r) >= Number(latest))],
        ['unset match, limit, rv unset: most recent', () => 'limit=2', (r) => assert.ok(rvOf(r) >= Number(latest))],
        ['unset match, limit, rv 0: any', () => 'limit=2&resourceVersion=0', (r) => assert.equal(r.status, 200)],
        ['unset match, limit, rv R: exact', () => `limit=10&resourceVersion=${first}`, (r) => {
          assert.equal(rvOf(r), Number(first));
          assert.deepEqual(r.json.items.map((i: Json) => i.metadata.name), ['a']);
        }],
        ['Exact, no limit, rv unset: invalid', () => 'resourceVersionMatch=Exact', (r) => expectStatus(r, 422, 'Invalid')],
        ['Exact, no limit, rv 0: invalid', () => 'resourceVersionMatch=Exact&resourceVersion=0', (r) => expectStatus(r, 422, 'Invalid')],
        ['Exact, no limit, rv R: exact', () => `resourceVersionMatch=Exact&resourceVersion=${first}`, (r) => assert.equal(rvOf(r), Number(first))],
        ['Exact, limit, rv unset: invalid', () => 'limit=1&resourceVersionMatch=Exact', (r) => expectStatus(r, 422, 'Invalid')],
        ['Exact, limit, rv 0: invalid', () => 'limit=1&resourceVersionMatch=Exact&resourceVersion=0', (r) => expectStatus(r, 422, 'Invalid')],
        ['Exact, limit, rv R: exact', () => `limit=1&resourceVersionMatch=Exact&resourceVersion=${first}`, (r) => assert.equal(rvOf(r), Number(first))],
        ['NotOlderThan, no limit, rv unset: invalid', () => 'resourceVersionMatch=NotOlderThan', (r) => expectStatus(r, 422, 'Invalid')],
        ['NotOlderThan, no limit, rv 0: any', () => 'resourceVersionMatch=NotOlderThan&resourceVersion=0', (r) => assert.equal(r.status, 200)],
        ['NotOlderThan, no limit, rv R: not older than', () => `resourceVersionMatch=NotOlderThan&resourceVersion=${first}`, (r) => assert.ok(rvOf(r) >= Number(latest))],
        ['NotOlderThan, limit, rv unset: invalid', () => 'limit=1&resourceVersionMatch=NotOlderThan', (r) => expectStatus(r, 422, 'Invalid')],
        ['NotOlderThan, limit, rv 0: any', () => 'limit=1&resourceVersionMatch=NotOlderThan&resourceVersion=0', (r) => assert.equal(r.status, 200)],
        ['NotOlderThan, limit, rv R: not older than', () => `limit=1&resourceVersionMatch=NotOlderThan&resourceVersion=${first}`, (r) => assert.ok(rvOf(r) >= Number(latest))],
        ['an unknown resourceVersionMatch is invalid', () => 'resourceVersionMatch=Newest&resourceVersion=1', (r) => expectStatus(r, 422, 'Invalid')],
        ['a resourceVersion that is not a number is 400', () => 'resourceVersion=abc', (r) => expectStatus(r, 400, 'BadRequest')],
        ['sendInitialEvents on a list is invalid', () => 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan', (r) => expectStatus(r, 422, 'Invalid')],
      ];
      for (const [name, query, check] of cases) {
        it(name, async () => {
          const response = await list(query());
          if (response.status !== 422 && response.status !== 400) assert.equal(response.status, 200, response.body);
          check(response);
        });
      }

      it('continue tokens: every chunk at the first chunk\u2019s version; rv 0 is ignored, another rv is 400', async () => {
        const page = await list('limit=2');
        assert.equal(page.json.items.length, 2);
        assert.equal(page.json.metadata.remainingItemCount, 2);
        const token = encodeURIComponent(page.json.metadata.continue);
        await call(roles(ns), { method: 'POST', body: role('later') });
        const next = await list(`limit=2&continue=${token}`);
        assert.equal(rvOf(next), rvOf(page));
        assert.deepEqual(next.json.items.map((i: Json) => i.metadata.name), ['c', 'd']);
        assert.equal(next.json.metadata.continue, undefined);
        assert.equal((await list(`limit=2&continue=${token}&resourceVersion=0`)).status, 200);
        expectStatus(await list(`limit=2&continue=${token}&resourceVersion=${latest}`), 400, 'BadRequest');
        const garbage = await list('limit=2&continue=garbage');
        expectStatus(garbage, 400, 'BadRequest');
        assert.match(garbage.json.message, /^invalid continue token: continue key is not valid: /);
        await call(`${roles(ns)}/later`, { method: 'DELETE' });
      });

      it('get: unset and 0 read the current object; another rv is not-older-than', async () => {
        assert.equal((await call(`${roles(ns)}/a`)).status, 200);
        assert.equal((await call(`${roles(ns)}/a?resourceVersion=0`)).status, 200);
        assert.equal((await call(`${roles(ns)}/a?resourceVersion=${first}`)).status, 200);
      });

      it('a version the store has not reached: 504 Timeout with Retry-After', async () => {
        const tooNew = Number(latest) + 1_000_000;
        for (const path of [`${roles(ns)}?resourceVersion=${tooNew}`, `${roles(ns)}/a?resourceVersion=${tooNew}`]) {
          const response = await call(path);
          expectStatus(response, 504, 'Timeout');
          assert.equal(response.headers['retry-after'], '1');
          assert.match(response.json.message, /Too large resource version/);
        }
      });
    });

    describe('watch (4.7, 6)', () => {
      const open = async (path: string) => {
        const watch = await target.server.watch(path, { token: target.token });
        assert.equal(watch.status, 200);
        return watch;
      };

      it('rv unset: synthetic ADDED for the current state, then changes; rv R: only later changes', async () => {
        const ns = await namespace();
        const a = await call(roles(ns), { method: 'POST', body: role('a') });
        const fromNow = await open(`${roles(ns)}?watch=1`);
        const initial = await fromNow.next();
        assert.equal(initial?.type, 'ADDED');
        assert.equal(initial?.object.metadata.name, 'a');
        const fromR = await open(`${roles(ns)}?watch=true&resourceVersion=${a.json.metadata.resourceVersion}`);
        await call(roles(ns), { method: 'POST', body: role('b') });
        const updated = await call(`${roles(ns)}/a`, { method: 'PUT', body: { ...a.json, rules: [] } });
        assert.equal(updated.status, 200, updated.body);
        await call(`${roles(ns)}/b`, { method: 'DELETE' });
        for (const watch of [fromNow, fromR]) {
          const seen = [];
          for (let i = 0; i < 3; i++) {
            const event = await watch.next();
            seen.push(`${event?.type} ${event?.object.metadata.name}`);
          }
          assert.deepEqual(seen, ['ADDED b', 'MODIFIED a', 'DELETED b']);
          watch.close();
        }
      });

      it('over HTTP/1.1 a watch is chunked (a run of events per chunk); over HTTP/1.0 it is read to the close', async () => {
        const ns = await namespace();
        const start = await call(roles(ns), { method: 'POST', body: role('before') });
        const rv = start.json.metadata.resourceVersion;
        for (const version of ['1.1', '1.0']) {
          const socket = tlsConnect({ host: '127.0.0.1', port: target.server.port, ca: target.server.ca });
          await once(socket, 'secureConnect');
          const received: Buffer[] = [];
          socket.on('data', (chunk: Buffer) => received.push(chunk));
          const ended = once(socket, 'end');
          socket.write(`GET ${roles(ns)}?watch=1&resourceVersion=${rv}&timeoutSeconds=2 HTTP/${version}\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${target.token}\r\n\r\n`);
          for (const name of [`h${version.replace('.', '')}-a`, `h${version.replace('.', '')}-b`]) await call(roles(ns), { method: 'POST', body: role(name) });
          await ended;
          socket.destroy();
          const raw = Buffer.concat(received).toString();
          const [head, body] = [raw.slice(0, raw.indexOf('\r\n\r\n')), raw.slice(raw.indexOf('\r\n\r\n') + 4)];
          assert.match(head, new RegExp(`^HTTP/1.1 200`), version);
          let lines: string[];
          if (version === '1.1') {
            assert.match(head, /transfer-encoding: chunked/i);
            // Decode the chunks by their sizes: each must hold whole event lines.
            let rest = body;
            const chunks: string[] = [];
            for (;;) {
              const size = Number.parseInt(rest.slice(0, rest.indexOf('\r\n')), 16);
              rest = rest.slice(rest.indexOf('\r\n') + 2);
              if (size === 0) break;
              chunks.push(rest.slice(0, size));
              assert.equal(rest.slice(size, size + 2), '\r\n', 'a chunk ends with CRLF');
              rest = rest.slice(size + 2);
            }
            assert.equal(rest, '\r\n', 'the last chunk ends the body');
            for (const chunk of chunks) assert.ok(chunk.endsWith('\n'), 'a chunk holds whole events');
            lines = chunks.join('').split('\n').filter(Boolean);
          } else {
            assert.doesNotMatch(head, /transfer-encoding/i);
            lines = body.split('\n').filter(Boolean);
          }
          const names = lines.map((line) => (JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name);
          const tag = version.replace('.', '');
          assert.deepEqual(names.filter((name) => name.startsWith(`h${tag}`)), [`h${tag}-a`, `h${tag}-b`], version);
        }
      });

      it('a label-selector watch reports an object that stops matching as DELETED', async () => {
        const ns = await namespace();
        const x = await call(roles(ns), { method: 'POST', body: role('x', { metadata: { labels: { team: 'a' } } }) });
        const watch = await open(`${roles(ns)}?watch=1&labelSelector=team%3Da&resourceVersion=${x.json.metadata.resourceVersion}`);
        const moved = { ...x.json, metadata: { ...x.json.metadata, labels: { team: 'b' } } };
        assert.equal((await call(`${roles(ns)}/x`, { method: 'PUT', body: moved })).status, 200);
        const event = await watch.next();
        assert.equal(event?.type, 'DELETED');
        assert.equal(event?.object.metadata.name, 'x');
        watch.close();
      });

      it('the single-object form watches one name', async () => {
        const ns = await namespace();
        const start = await call(roles(ns), { method: 'POST', body: role('other') });
        const watch = await open(`${roles(ns)}?watch=1&fieldSelector=metadata.name%3Done&resourceVersion=${start.json.metadata.resourceVersion}`);
        await call(roles(ns), { method: 'POST', body: role('two') });
        await call(roles(ns), { method: 'POST', body: role('one') });
        const event = await watch.next();
        assert.equal(event?.object.metadata.name, 'one');
        watch.close();
      });

      it('sendInitialEvents ends the initial events with an annotated BOOKMARK; without NotOlderThan it is invalid', async () => {
        const ns = await namespace();
        await call(roles(ns), { method: 'POST', body: role('p') });
        const watch = await open(`${roles(ns)}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
        assert.equal((await watch.next())?.type, 'ADDED');
        const bookmark = await watch.next();
        assert.equal(bookmark?.type, 'BOOKMARK');
        assert.equal(bookmark?.object.metadata.annotations?.[`${target.domain}/initial-events-end`], 'true');
        assert.match(String(bookmark?.object.metadata.resourceVersion), /^\d+$/);
        watch.close();
        expectStatus(await call(`${roles(ns)}?watch=1&sendInitialEvents=true`), 422, 'Invalid');
      });

      it('a watch that asks for bookmarks gets one 2 s before its timeoutSeconds ends it, at the current resourceVersion', async () => {
        const ns = await namespace();
        const created = await call(roles(ns), { method: 'POST', body: role('t') });
        const started = Date.now();
        const watch = await open(`${roles(ns)}?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${created.json.metadata.resourceVersion}`);
        const bookmark = await watch.next(5000);
        const bookmarkAt = Date.now() - started;
        assert.equal(bookmark?.type, 'BOOKMARK');
        assert.ok(Number(bookmark?.object.metadata.resourceVersion) >= Number(created.json.metadata.resourceVersion));
        assert.ok(bookmarkAt >= 900 && bookmarkAt < 2900, `bookmark after ${bookmarkAt} ms`);
        assert.equal(await watch.next(5000), undefined, 'the stream ends at its timeout');
        const endedAt = Date.now() - started;
        assert.ok(endedAt >= 2900 && endedAt < 6000, `ended after ${endedAt} ms`);
      });

      it('a client that disconnects frees its watch at once', async () => {
        const ns = await namespace();
        const watchers = async (): Promise<number> => {
          const metrics = (await target.server.request('/metrics', { token: target.token })).body;
          const line = metrics.split('\n').find((l) => l.startsWith('apiserver_registered_watchers{') && l.includes('kind="Role"'));
          return Number(line?.split(' ').pop() ?? 0);
        };
        const before = await watchers();
        const watch = await open(`${roles(ns)}?watch=1`);
        assert.equal(await watchers(), before + 1);
        watch.close();
        const deadline = Date.now() + 5000;
        while ((await watchers()) !== before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(await watchers(), before);
      });

      it('timeoutSeconds ends the stream cleanly', async () => {
        const ns = await namespace();
        const watch = await open(`${roles(ns)}?watch=1&timeoutSeconds=1`);
        const started = Date.now();
        assert.equal(await watch.next(5000), undefined);
        assert.ok(Date.now() - started >= 900);
      });

      it('1,000 changes reach three watchers, one from an old revision, exactly and in order', async () => {
        const ns = await namespace();
        const seed = await call(roles(ns), { method: 'POST', body: role('seed') });
        const old = seed.json.metadata.resourceVersion;
        await call(roles(ns), { method: 'POST', body: role('before-watch') });
        const current = (await call(roles(ns))).json.metadata.resourceVersion;
        const watchers = [
          await open(`${roles(ns)}?watch=1&resourceVersion=${current}`),
          await open(`${roles(ns)}?watch=1&resourceVersion=${current}`),
          await open(`${roles(ns)}?watch=1&resourceVersion=${old}`),
        ];
        const expected: string[] = [];
        let object = (await call(`${roles(ns)}/seed`)).json;
        for (let i = 0; i < 1000; i++) {
          const updated = await call(`${roles(ns)}/seed`, {
            method: 'PUT',
            body: { ...object, metadata: { ...object.metadata, labels: { step: String(i) } } },
          });
          assert.equal(updated.status, 200, updated.body);
          object = updated.json;
          expected.push(object.metadata.resourceVersion);
        }
        const oldWatcherFirst = await watchers[2]!.next();
        assert.equal(oldWatcherFirst?.object.metadata.name, 'before-watch');
        for (const watcher of watchers) {
          const seen: string[] = [];
          for (let i = 0; i < 1000; i++) {
            const event = await watcher.next();
            assert.equal(event?.type, 'MODIFIED');
            seen.push(String(event?.object.metadata.resourceVersion));
          }
          assert.deepEqual(seen, expected);
          watcher.close();
        }
      });
    });
  });
}
