// /openapi/v2 and /openapi/v3 over HTTPS: kube-openapi's caching (ETag, 304, immutable ?hash= URLs
// and the 301 from a stale hash), Accept negotiation (the v2 Protobuf form; the v3 one is refused).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { gunzipSync } from 'node:zlib';
import { builtinDefinitions } from '@plat/api';
import { startServer, testCert, type TestServer } from '@plat/apiserver/testing';

const sha512 = (body: string | Buffer): string => createHash('sha512').update(body).digest('hex').toUpperCase();

/** A GET whose body is kept as bytes (for gzip). */
async function getRaw(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const { ca } = await testCert();
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, headers, ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('OpenAPI endpoints', () => {
  let server: TestServer;
  before(async () => {
    // IPAddress (alpha) is off unless --runtime-config turns it on, and so is admissionregistration's v1beta1.
    server = await startServer({
      api: { definitions: builtinDefinitions, domain: 'k8s.io', runtimeConfig: [{ key: 'api/alpha', enabled: true }, { key: 'api/beta', enabled: true }] },
    });
  });
  after(() => server.server.shutdown());

  it('/openapi/v2: Swagger 2.0 JSON with the SHA-512 of the body as its ETag', async () => {
    const res = await server.get('/openapi/v2');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers.etag, `"${sha512(res.body)}"`);
    assert.ok(res.headers['last-modified']);
    const document = JSON.parse(res.body) as { swagger: string; definitions: Record<string, unknown> };
    assert.equal(document.swagger, '2.0');
    assert.ok(document.definitions['io.k8s.api.rbac.v1.Role']);
  });

  it('/openapi/v2: If-None-Match with the ETag answers 304 without a body', async () => {
    const { headers } = await server.get('/openapi/v2');
    const res = await server.get('/openapi/v2', { headers: { 'if-none-match': String(headers.etag) } });
    assert.equal(res.status, 304);
    assert.equal(res.body, '');
    assert.equal(res.headers.etag, headers.etag);
    assert.equal((await server.get('/openapi/v2', { headers: { 'if-none-match': '"other"' } })).status, 200);
  });

  it('/openapi/v2: gzip when the client accepts it', async () => {
    const plain = await server.get('/openapi/v2');
    const res = await getRaw(server.port, '/openapi/v2', { 'accept-encoding': 'gzip' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(res.body).toString('utf8'), plain.body);
  });

  it('/openapi/v2: the Protobuf form, with the ETag of the JSON form', async () => {
    const json = await server.get('/openapi/v2');
    for (const accept of ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf']) {
      const res = await getRaw(server.port, '/openapi/v2', { accept });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
      assert.equal(res.headers.etag, json.headers.etag);
      // Field 1 (swagger), length-delimited: "2.0".
      assert.deepEqual([...res.body.subarray(0, 5)], [0x0a, 3, ...Buffer.from('2.0')]);
    }
    const preferred = await server.get('/openapi/v2', { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0.5, application/json' } });
    assert.equal(preferred.headers['content-type'], 'application/json');
  });

  it('/openapi/v2: anything else is refused with a 406 Status', async () => {
    const refused = await server.get('/openapi/v2', { headers: { accept: 'application/xml' } });
    assert.equal(refused.status, 406);
    const status = JSON.parse(refused.body) as { kind: string; reason: string; code: number };
    assert.deepEqual([status.kind, status.reason, status.code], ['Status', 'NotAcceptable', 406]);
  });

  it('/openapi/v3: the index of group versions, each URL with the hash of its document', async () => {
    const res = await server.get('/openapi/v3');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers.etag, `"${sha512(res.body)}"`);
    const { paths } = JSON.parse(res.body) as { paths: Record<string, { serverRelativeURL: string }> };
    const served = new Set(builtinDefinitions.map(({ group, version }) => (group ? `apis/${group.replace('{domain}', 'k8s.io')}/${version}` : `api/${version}`)));
    assert.deepEqual(Object.keys(paths), [...served].sort());
    for (const [key, { serverRelativeURL }] of Object.entries(paths)) {
      assert.match(serverRelativeURL, new RegExp(`^/openapi/v3/${key.replaceAll('.', '\\.')}\\?hash=[0-9A-F]{128}$`));
      const document = await server.get(serverRelativeURL);
      assert.equal(document.status, 200);
      assert.equal(serverRelativeURL.split('hash=')[1], sha512(document.body));
    }
    const notModified = await server.get('/openapi/v3', { headers: { 'if-none-match': String(res.headers.etag) } });
    assert.equal(notModified.status, 304);
  });

  it('/openapi/v3/<gv>?hash=<current>: immutable caching headers', async () => {
    const index = JSON.parse((await server.get('/openapi/v3')).body) as { paths: Record<string, { serverRelativeURL: string }> };
    const url = index.paths['apis/rbac.authorization.k8s.io/v1']!.serverRelativeURL;
    const res = await server.get(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers['cache-control'], 'public, immutable');
    assert.equal(res.headers.vary, 'Accept');
    assert.equal(res.headers.etag, `"${url.split('hash=')[1]}"`);
    const expires = Date.parse(String(res.headers.expires));
    assert.ok(expires > Date.now() + 360 * 24 * 3600 * 1000, String(res.headers.expires));
    const document = JSON.parse(res.body) as { openapi: string; components: { schemas: Record<string, unknown> } };
    assert.equal(document.openapi, '3.0.0');
    assert.ok(document.components.schemas['io.k8s.api.rbac.v1.Role']);
    assert.equal(document.components.schemas['io.k8s.api.core.v1.ServiceAccount'], undefined);

    const notModified = await server.get(url, { headers: { 'if-none-match': String(res.headers.etag) } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.body, '');
  });

  it('/openapi/v3/<gv> without a hash: the document with its ETag, not marked immutable', async () => {
    const res = await server.get('/openapi/v3/api/v1');
    assert.equal(res.status, 200);
    assert.equal(res.headers['cache-control'], undefined);
    assert.equal(res.headers.etag, `"${sha512(res.body)}"`);
  });

  it('/openapi/v3/<gv>?hash=<stale>: 301 to the current hash, as upstream', async () => {
    const current = sha512((await server.get('/openapi/v3/api/v1')).body);
    const res = await server.get('/openapi/v3/api/v1?hash=0123');
    assert.equal(res.status, 301);
    assert.equal(res.headers.location, `/openapi/v3/api/v1?hash=${current}`);
    assert.equal(res.headers['cache-control'], undefined);
  });

  it('/openapi/v3/<gv>: the Protobuf form is refused with 406; an unknown group version is 404', async () => {
    const refused = await server.get('/openapi/v3/api/v1', { headers: { accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' } });
    assert.equal(refused.status, 406);
    assert.equal((await server.get('/openapi/v3/apis/apps/v1')).status, 404);
  });
});
