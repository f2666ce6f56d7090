// Requests that took a whole replica down (hostile input, round 2), against a real replica: each is
// answered with a 4xx, and the replica goes on answering /healthz within a second while they run.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { adminTokenFile, eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

const GROUP = 'hostile.example.com';

/** A namespaced CRD whose objects' `spec.s` is a string with this schema. */
const crd = (plural: string, kind: string, s: Record<string, unknown>) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural, singular: kind.toLowerCase(), kind },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { s } } } } },
      },
    ],
  },
});

describe('hostile input against a replica (--api-domain=k8s.io)', () => {
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let server: ApiserverProcess;
  const api = (path: string, body?: unknown) => server.request(path, { token: tokens.token, ...(body !== undefined && { method: 'POST', body }) });

  /** Runs `attack` while /healthz is asked every 100 ms; the slowest answer, in ms. */
  async function slowestHealthzDuring(attack: () => Promise<void>): Promise<number> {
    let slowest = 0;
    let done = false;
    const probe = (async () => {
      while (!done) {
        const start = performance.now();
        const response = await server.request('/healthz');
        assert.equal(response.status, 200);
        slowest = Math.max(slowest, performance.now() - start);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      await attack();
    } finally {
      done = true;
      await probe;
    }
    return slowest;
  }

  before(async () => {
    tokens = await adminTokenFile();
    server = await startApiserver(['--storage-backend=memory', '--api-domain=k8s.io', `--token-auth-file=${tokens.file}`]);
  });
  after(async () => {
    await server?.stop();
    await tokens?.cleanup();
  });

  // ECMAScript's backtracking engine took 10 s of CPU for 30 a's and never came back for 5,000.
  it("a CRD pattern that backtracks elsewhere ('^(a+)+$', '^(a|a)*$') checks 5,000 a's and a '!' at once", async () => {
    const created = await api('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('backtracks', 'Backtrack', { type: 'string', pattern: '^(a+)+$|^(b|b)*$' }));
    assert.equal(created.status, 201, created.body);
    const objects = `/apis/${GROUP}/v1/namespaces/default/backtracks`;
    await eventually('the CRD served', async () => (await api(objects)).status === 200);
    const slowest = await slowestHealthzDuring(async () => {
      const answers = await Promise.all(
        ['a', 'b', 'a', 'b'].map((letter, i) => api(objects, { apiVersion: `${GROUP}/v1`, kind: 'Backtrack', metadata: { name: `x${i}` }, spec: { s: `${letter.repeat(5000)}!` } })),
      );
      for (const answer of answers) {
        assert.equal(answer.status, 422, answer.body.slice(0, 300));
        assert.match(answer.body, /spec\.s in body should match/);
      }
    });
    assert.ok(slowest < 1000, `/healthz took ${slowest.toFixed(0)} ms`);
    const accepted = await api(objects, { apiVersion: `${GROUP}/v1`, kind: 'Backtrack', metadata: { name: 'fine' }, spec: { s: 'a'.repeat(5000) } });
    assert.equal(accepted.status, 201, accepted.body.slice(0, 300));
  });

  // RE2's syntax was accepted when the CRD was written, then refused every value.
  it('RE2-only syntax in a pattern matches values as Go does', async () => {
    const created = await api('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('posixes', 'Posix', { type: 'string', pattern: '(?i)^[[:alpha:]]+$' }));
    assert.equal(created.status, 201, created.body);
    const objects = `/apis/${GROUP}/v1/namespaces/default/posixes`;
    await eventually('the CRD served', async () => (await api(objects)).status === 200);
    const good = await api(objects, { apiVersion: `${GROUP}/v1`, kind: 'Posix', metadata: { name: 'good' }, spec: { s: 'AbC' } });
    assert.equal(good.status, 201, good.body);
    const bad = await api(objects, { apiVersion: `${GROUP}/v1`, kind: 'Posix', metadata: { name: 'bad' }, spec: { s: 'ab1' } });
    assert.equal(bad.status, 422, bad.body);
    assert.match(bad.body, /spec\.s in body should match '\(\?i\)\^\[\[:alpha:\]\]\+\$'/);
  });
});
