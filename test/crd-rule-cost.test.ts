// CRD rules built to hold a replica's event loop, against a real replica on memory storage: a rule
// squaring a string (stopped by its cost before the result is built) and a rule whose work its
// cost does not see (stopped by the time bound), four requests of each at once while /healthz is
// polled: every answer a 422 with upstream's words, /healthz answered within a second throughout.
// (Before: 2 s of CPU and 370 MiB per 20,000-character object, four in 9.7 s with nothing else
// served, and a 500 at 100,000 characters.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { adminTokenFile, eventually, startApiserver, type ApiserverProcess, type Response } from './support/apiserver-process.js';

const GROUP = 'rules.example.com';
const NS = 'cel';

/** A CRD `<plural>.rules.example.com` whose spec has these properties and rules. */
const crd = (plural: string, kind: string, properties: unknown, rules: unknown[]) => ({
  apiVersion: 'apiextensions.plat.io/v1',
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
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': rules } } } },
      },
    ],
  },
});

const SQUARE = "self.s.replace('a', self.s).size() > 0";
const COMPARE = 'self.a.all(x, self.b == self.c)';

describe('CRD rules built to hold the event loop: a replica on memory storage', () => {
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let apiserver: ApiserverProcess;
  const send = (method: string, path: string, body?: unknown): Promise<Response> => apiserver.request(path, { method, body, token: tokens.token });
  const create = (plural: string, kind: string, name: string, spec: unknown): Promise<Response> =>
    send('POST', `/apis/${GROUP}/v1/namespaces/${NS}/${plural}`, { apiVersion: `${GROUP}/v1`, kind, metadata: { name }, spec });
  const causes = (response: Response): string[] => (JSON.parse(response.body) as { details?: { causes?: { field: string; message: string }[] } }).details?.causes?.map((c) => `${c.field}: ${c.message}`) ?? [];
  const establish = async (definition: ReturnType<typeof crd>): Promise<void> => {
    const created = await send('POST', '/apis/apiextensions.plat.io/v1/customresourcedefinitions', definition);
    assert.equal(created.status, 201, created.body);
    const plural = definition.spec.names.plural;
    await eventually(`${plural} served`, async () => (await send('GET', `/apis/${GROUP}/v1/namespaces/${NS}/${plural}`)).status === 200);
  };

  /**
   * Runs `requests` at once while /healthz is asked every 20 ms; the requests' answers, and the
   * longest any /healthz took (from sent to answered).
   */
  async function whileServing(requests: (() => Promise<Response>)[]): Promise<{ answers: Response[]; slowestHealthz: number }> {
    let done = false;
    let slowest = 0;
    const poll = (async () => {
      while (!done) {
        const sent = performance.now();
        const response = await apiserver.request('/healthz');
        assert.equal(response.status, 200);
        slowest = Math.max(slowest, performance.now() - sent);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      return { answers: await Promise.all(requests.map((r) => r())), slowestHealthz: slowest };
    } finally {
      done = true;
      await poll;
    }
  }

  before(async () => {
    tokens = await adminTokenFile();
    apiserver = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`]);
    await eventually('readyz', async () => (await apiserver.request('/readyz')).status === 200);
    assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
    await establish(crd('squares', 'Square', { s: { type: 'string', maxLength: 100_000 } }, [{ rule: SQUARE }]));
    // Bounded so that the estimate passes (about 1,000,000): comparing b and c is estimated by their outer lengths.
    const integers = (maxItems: number) => ({ type: 'array', maxItems, items: { type: 'integer' } });
    const lists = { type: 'array', maxItems: 10, items: integers(20_000) };
    await establish(crd('compares', 'Compare', { a: integers(100_000), b: lists, c: lists }, [{ rule: COMPARE }]));
  });
  after(async () => {
    await apiserver?.stop();
    await tokens?.cleanup();
  });

  it('a rule squaring a string of 20,000 or 100,000 characters: 422 with the cost message, four at once, /healthz within 1 s', async (t) => {
    // Upstream's validator compares the cost with the object's budget before it looks at the
    // error: a single call costing more than the budget (400,000,000 here) gets the budget's message.
    const budget = `spec: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run`;
    for (const length of [20_000, 100_000]) {
      const started = performance.now();
      const { answers, slowestHealthz } = await whileServing(Array.from({ length: 4 }, (_, i) => () => create('squares', 'Square', `s-${length}-${i}`, { s: 'a'.repeat(length) })));
      const elapsed = performance.now() - started;
      for (const answer of answers) {
        assert.equal(answer.status, 422, answer.body);
        assert.deepEqual(causes(answer), [budget]);
      }
      t.diagnostic(`${length} characters: four requests in ${elapsed.toFixed(0)} ms, the slowest /healthz meanwhile ${slowestHealthz.toFixed(0)} ms`);
      assert.ok(slowestHealthz < 1_000, `/healthz took ${slowestHealthz.toFixed(0)} ms`);
      assert.ok(elapsed < 5_000, `four requests took ${elapsed.toFixed(0)} ms`);
    }
    // Between the per-call limit and the budget: the limit's message.
    const limited = await create('squares', 'Square', 's-5000', { s: 'a'.repeat(5_000) });
    assert.equal(limited.status, 422, limited.body);
    assert.deepEqual(causes(limited), [`spec: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${SQUARE}`]);
    assert.equal((await create('squares', 'Square', 'small', { s: 'ab' })).status, 201);
  });

  it('a rule whose work its cost does not see: interrupted as upstream is when the request\'s context is done, four at once, /healthz within 1 s', async (t) => {
    // Comparing b and c costs by their lengths (10), not by the 50,000 items they hold: for each of
    // a's 5,000 items, seconds in all for a cost far under the limit. Bodies of 200 KB, so that what
    // the replica spends on them besides the rule (decoding, the schema) stays small beside it.
    const inner = Array<number>(5_000).fill(1);
    const spec = { a: Array<number>(5_000).fill(1), b: Array.from({ length: 10 }, () => inner), c: Array.from({ length: 10 }, () => inner) };
    const started = performance.now();
    const { answers, slowestHealthz } = await whileServing(Array.from({ length: 4 }, (_, i) => () => create('compares', 'Compare', `c-${i}`, spec)));
    const elapsed = performance.now() - started;
    for (const answer of answers) {
      assert.equal(answer.status, 422, answer.body);
      assert.deepEqual(causes(answer), [`spec: Invalid value: "object": operation interrupted evaluating rule: ${COMPARE}`]);
    }
    t.diagnostic(`four requests in ${elapsed.toFixed(0)} ms, the slowest /healthz meanwhile ${slowestHealthz.toFixed(0)} ms`);
    assert.ok(slowestHealthz < 1_000, `/healthz took ${slowestHealthz.toFixed(0)} ms`);
    assert.ok(elapsed < 10_000, `four requests took ${elapsed.toFixed(0)} ms`);
  });
});
