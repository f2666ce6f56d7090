// Requests built to hurt: each is refused with a precise 4xx, changes nothing, and leaves the server
// serving (patch growth, nesting, YAML aliases, numbers a field cannot hold, bad parameters, CEL
// expressions too long, too deep or too costly in CRD rules and admission policies).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { customResourceDefinitions } from '@plat/api';
import { encodeObject } from '@plat/protobuf';
import { startApiServer, type ApiTestServer } from './testing/index.js';
import { parseRuntimeConfig } from './runtime-config.js';
import type { Response } from './testing/index.js';

const rbac = '/apis/rbac.authorization.plat.io/v1';
const NS = 'hostile';
const roles = `${rbac}/namespaces/${NS}/roles`;
const leases = `/apis/coordination.plat.io/v1/namespaces/${NS}/leases`;

interface Json {
  [field: string]: any;
}
const json = (response: Response): Json => JSON.parse(response.body) as Json;
const deepArray = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
/** A field set nested `depth` levels deep (FieldsV1 holds every level as an object). */
const deepFieldSet = (depth: number): Json => {
  let set: Json = {};
  for (let i = 0; i < depth; i++) set = { 'f:a': set };
  return set;
};
/** A Role as Protobuf whose managedFields entry carries this field set (JSON text inside the bytes). */
const protobufRole = (name: string, fieldsV1: Json): Uint8Array =>
  encodeObject({
    apiVersion: 'rbac.authorization.plat.io/v1',
    kind: 'Role',
    metadata: { name, managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'rbac.authorization.plat.io/v1', fieldsType: 'FieldsV1', fieldsV1 }] },
  });
const PROTOBUF = { 'Content-Type': 'application/vnd.plat.protobuf' };

describe('hostile input', () => {
  let api: ApiTestServer;
  const patch = (path: string, type: string, body: string | unknown, query = ''): Promise<Response> =>
    api.send('PATCH', `${path}${query}`, body, { 'Content-Type': type });
  const expectStatus = (response: Response, code: number, message?: RegExp): Json => {
    assert.equal(response.status, code, response.body);
    const status = json(response);
    assert.equal(status.kind, 'Status', response.body);
    if (message) assert.match(status.message, message);
    return status;
  };
  const role = async (name: string, extra: Json = {}, rules: Json[] = []): Promise<Json> => {
    const created = await api.send('POST', roles, { metadata: { name, ...extra }, rules });
    assert.equal(created.status, 201, created.body);
    return json(created);
  };
  const unchanged = async (name: string, before: Json): Promise<void> => {
    const now = json(await api.send('GET', `${roles}/${name}`));
    assert.equal(now.metadata.resourceVersion, before.metadata.resourceVersion, 'the object is unchanged');
  };

  before(async () => {
    api = await startApiServer();
    assert.equal((await api.send('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
  });
  after(() => api?.server.shutdown());

  describe('a patch cannot grow an object without bound', () => {
    const copyBomb = [{ op: 'add', path: '/metadata/annotations', value: { x: '[]' } }, { op: 'add', path: '/x', value: [{ a: { b: 1 } }] }];
    for (let i = 0; i < 26; i++) copyBomb.push({ op: 'copy', from: '/x', path: '/x/-' } as never);

    for (const dryRun of ['', '?dryRun=All']) {
      it(`a JSON patch copying a list into itself 26 times is a 422 naming the copy limit${dryRun && ', under dry run too'}`, async () => {
        const before = await role(`copy-bomb${dryRun ? '-dry' : ''}`);
        const response = await patch(`${roles}/${before.metadata.name}`, 'application/json-patch+json', copyBomb, dryRun);
        const status = expectStatus(response, 422, /^the server rejected our request due to an error in our request$/);
        assert.equal(status.reason, 'Invalid');
        assert.match(status.details.causes[0].message, /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
        await unchanged(before.metadata.name, before);
      });
    }

    it('copies within the copy limit that take the object past 3 MiB are a 413', async () => {
      const big = { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['x'.repeat(1400 * 1024)] };
      const before = await role('grows', {}, [big]);
      const response = await patch(`${roles}/grows`, 'application/json-patch+json', [
        { op: 'copy', from: '/rules/0', path: '/rules/-' },
        { op: 'copy', from: '/rules/0', path: '/rules/-' },
      ]);
      expectStatus(response, 413, /^Request entity too large: the patched object is larger than the limit of 3145728 bytes$/);
      await unchanged('grows', before);
    });

    it('an apply whose YAML aliases expand past 3 MiB is a 413', async () => {
      const text = [
        `apiVersion: rbac.authorization.plat.io/v1`,
        `kind: Role`,
        `metadata: {name: aliases, annotations: {a: &big "${'x'.repeat(64 * 1024)}"}}`,
        `rules: [${Array.from({ length: 60 }, () => '{verbs: [*big], apiGroups: [""], resources: [pods]}').join(', ')}]`,
      ].join('\n');
      expectStatus(await patch(`${roles}/aliases`, 'application/apply-patch+yaml', text, '?fieldManager=test'), 413, /^Request entity too large/);
      assert.equal((await api.send('GET', `${roles}/aliases`)).status, 404, 'nothing was created');
    });
  });

  describe('nesting past 500 levels is a 400, in every format and patch type', () => {
    const cases: [string, () => Promise<Response>, RegExp][] = [
      ['POST JSON', () => api.send('POST', roles, `{"metadata":{"name":"deep"},"rules":[],"x":${deepArray(9000)}}`), /^couldn't get version\/kind; json parse error: exceeded max depth of 500$/],
      ['POST YAML', () => api.send('POST', roles, `metadata: {name: deep}\nrules: []\nx: ${deepArray(9000)}`, { 'Content-Type': 'application/yaml' }), /exceeded max depth of 500$/],
      ['POST Protobuf (JSON text within it)', () => api.send('POST', roles, protobufRole('deep', deepFieldSet(600)), PROTOBUF), /^the Protobuf body could not be decoded: exceeded max depth of 500$/],
      ['merge patch', () => patch(`${roles}/target`, 'application/merge-patch+json', `{"x":${deepObject(9000)}}`), /^error decoding patch: exceeded max depth of 500$/],
      ['strategic merge patch', () => patch(`${roles}/target`, 'application/strategic-merge-patch+json', `{"x":${deepObject(9000)}}`), /^error decoding patch: exceeded max depth of 500$/],
      ['JSON patch', () => patch(`${roles}/target`, 'application/json-patch+json', `[{"op":"add","path":"/x","value":${deepArray(9000)}}]`), /^error decoding patch: exceeded max depth of 500$/],
      ['apply', () => patch(`${roles}/target`, 'application/apply-patch+yaml', `{"apiVersion":"rbac.authorization.plat.io/v1","kind":"Role","metadata":{"name":"target"},"x":${deepArray(9000)}}`, '?fieldManager=t'), /exceeded max depth of 500$/],
      ['a JSON patch that nests the object into itself', () => patch(`${roles}/target`, 'application/json-patch+json', nestByMoves(600)), /^the patched object exceeded max depth of 500$/],
    ];
    let before: Json;
    it('(the object they patch)', async () => {
      before = await role('target');
    });
    for (const [name, send, message] of cases) {
      it(name, async () => {
        expectStatus(await send(), 400, message);
        await unchanged('target', before);
      });
    }
    it('a Protobuf body nested within the bound is decoded', async () => {
      const response = await api.send('POST', roles, protobufRole('nested-ok-protobuf', deepFieldSet(450)), PROTOBUF);
      assert.equal(response.status, 201, response.body);
    });
    it('nesting within the bound is decoded (an unknown field, dropped with a warning)', async () => {
      const response = await api.send('POST', roles, `{"metadata":{"name":"nested-ok"},"rules":[],"x":${deepArray(450)}}`);
      assert.equal(response.status, 201, response.body);
      assert.match(String(response.headers.warning), /unknown field \\"x\\"/);
    });
  });

  describe('YAML', () => {
    it('an alias bomb is a 400', async () => {
      const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
      for (let i = 1; i < 8; i++) levels.push(`l${i}: &l${i} [${Array(9).fill(i === 1 ? '*a' : `*l${i - 1}`).join(',')}]`);
      const text = `apiVersion: rbac.authorization.plat.io/v1\nkind: Role\nmetadata: {name: bomb}\nrules: []\n${levels.join('\n')}\n`;
      expectStatus(await api.send('POST', roles, text, { 'Content-Type': 'application/yaml' }), 400, /^error converting YAML to JSON: document contains excessive aliasing$/);
      expectStatus(await patch(`${roles}/bomb`, 'application/apply-patch+yaml', text, '?fieldManager=t'), 400, /^error decoding YAML: document contains excessive aliasing$/);
    });
    it('.inf cannot be carried in JSON: a 400', async () => {
      const text = 'metadata: {name: inf, generation: .inf}\nrules: []\n';
      expectStatus(await api.send('POST', roles, text, { 'Content-Type': 'application/yaml' }), 400, /unsupported value: \.inf$/);
    });
  });

  describe('numbers a field cannot hold are refused, never rounded', () => {
    const cases: [string, string, string, RegExp][] = [
      ['an int64 past its range', roles, '{"metadata":{"name":"n1","generation":1e30},"rules":[]}', /metadata\.generation: cannot unmarshal number 1e\+30 into a field of type int64/],
      ['an int64 a double cannot hold exactly', roles, '{"metadata":{"name":"n2","generation":9007199254740993},"rules":[]}', /metadata\.generation: 9007199254740993 cannot be held exactly/],
      ['an int32 past its range', leases, '{"metadata":{"name":"n3"},"spec":{"leaseDurationSeconds":2147483648}}', /spec\.leaseDurationSeconds: cannot unmarshal number 2147483648 into a field of type int32/],
      ['a negative int32 past its range', leases, '{"metadata":{"name":"n4"},"spec":{"leaseDurationSeconds":-2147483649}}', /into a field of type int32/],
    ];
    for (const [name, path, body, message] of cases) {
      it(name, async () => {
        expectStatus(await api.send('POST', path, body), 400, message);
        assert.equal((await api.send('GET', `${path}/${(JSON.parse(body) as Json).metadata.name}`)).status, 404);
      });
    }
    it('the edges of each range are stored exactly', async () => {
      const max = await api.send('POST', roles, '{"metadata":{"name":"n5","generation":9007199254740991},"rules":[]}');
      assert.equal(max.status, 201, max.body);
      assert.match((await api.send('GET', `${roles}/n5`)).body, /"generation":9007199254740991/);
      const lease = await api.send('POST', leases, '{"metadata":{"name":"n6"},"spec":{"leaseDurationSeconds":2147483647}}');
      assert.equal(lease.status, 201, lease.body);
    });
    it('a quantity given as a long number keeps its digits, as upstream parses the literal', async () => {
      const body = '{"metadata":{"name":"q"},"spec":{"limits":[{"type":"Container","max":{"cpu":123456789012345678901234567890}}]}}';
      const created = await api.send('POST', `/api/v1/namespaces/${NS}/limitranges`, body);
      assert.equal(created.status, 201, created.body);
      assert.equal(json(created).spec.limits[0].max.cpu, '123456789012345678901234567890');
    });
    it('a merge patch carries a long quantity the same way', async () => {
      const response = await patch(`/api/v1/namespaces/${NS}/limitranges/q`, 'application/merge-patch+json', '{"spec":{"limits":[{"type":"Container","max":{"memory":98765432109876543210987654321}}]}}');
      assert.equal(response.status, 200, response.body);
      assert.equal(json(response).spec.limits[0].max.memory, '98765432109876543210987654321');
    });
    it('a null label value is stored as "", as upstream decodes it', async () => {
      const created = await api.send('POST', roles, '{"metadata":{"name":"null-label","labels":{"a":null}},"rules":[]}');
      assert.equal(created.status, 201, created.body);
      assert.deepEqual(json(created).metadata.labels, { a: '' });
    });
  });

  describe('parameters', () => {
    it('timeoutSeconds that is not a number is a 400 on a list, as on a watch', async () => {
      for (const query of ['?timeoutSeconds=abc', '?watch=1&timeoutSeconds=abc']) {
        expectStatus(await api.send('GET', `${roles}${query}`), 400, /^invalid value for parameter timeoutSeconds: "abc": expected an integer$/);
      }
    });
  });
});

describe('hostile input: CEL expressions', () => {
  let api: ApiTestServer;
  const crds = '/apis/apiextensions.plat.io/v1/customresourcedefinitions';
  const policies = '/apis/admissionregistration.plat.io/v1beta1/validatingadmissionpolicies';
  /** A CRD `<plural>.example.com` whose spec has a string s (up to 100,000 characters) and an int n, and these rules. */
  const crd = (plural: string, rules: Json[]): Json => ({
    apiVersion: 'apiextensions.plat.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, kind: `${plural[0]!.toUpperCase()}${plural.slice(1, -1)}` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { s: { type: 'string', maxLength: 100_000 }, n: { type: 'integer' } }, 'x-kubernetes-validations': rules } },
            },
          },
        },
      ],
    },
  });
  const until = async <T>(probe: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 500; i++) {
      const found = await probe();
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('timed out');
  };
  const served = (plural: string) => until(async () => ((await api.send('GET', `/apis/example.com/v1/namespaces/${NS}/${plural}`)).status === 200 ? true : undefined));
  /** The causes' messages of a refusal. */
  const causes = (response: Response): string[] => (json(response).details?.causes ?? []).map((c: Json) => `${c.field}: ${c.message}`);

  before(async () => {
    api = await startApiServer(
      {},
      { customResources: customResourceDefinitions, runtimeConfig: parseRuntimeConfig(['admissionregistration.k8s.io/v1beta1=true']), validatingAdmissionPolicy: true },
    );
    assert.equal((await api.send('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
  });
  after(() => api?.server.shutdown());

  // A replace is charged by its result's length before it runs. Upstream's validator compares the
  // cost with the object's budget (10,000,000) before it looks at the error, and cel-go reports the
  // whole cost of the call that passed the limit: a call costing more than the budget is answered
  // with the budget's message, one between the per-call limit and the budget with the limit's.
  const squares = [
    [5_000, "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.s.replace('a', self.s).size() > 0"],
    [20_000, 'validation failed due to running out of cost budget, no further validation rules will be run'],
    [100_000, 'validation failed due to running out of cost budget, no further validation rules will be run'],
  ] as const;
  it('a rule that would square a long string is a 422 with the cost message, answered at once, the string never built', async () => {
    assert.equal((await api.send('POST', crds, crd('squares', [{ rule: "self.s.replace('a', self.s).size() > 0" }]))).status, 201);
    await served('squares');
    const object = (name: string, s: string) => ({ apiVersion: 'example.com/v1', kind: 'Square', metadata: { name }, spec: { s } });
    for (const [length, message] of squares) {
      const started = performance.now();
      const response = await api.send('POST', `/apis/example.com/v1/namespaces/${NS}/squares`, object(`s${length}`, 'a'.repeat(length)));
      assert.equal(response.status, 422, response.body);
      assert.deepEqual(causes(response), [`spec: Invalid value: "object": ${message}`]);
      assert.ok(performance.now() - started < 1_000, 'answered at once');
    }
    assert.equal((await api.send('POST', `/apis/example.com/v1/namespaces/${NS}/squares`, object('small', 'ab'))).status, 201);
  });

  const SIZE = /^ERROR: <input>:-1:0: expression code point size exceeds limit: size: \d+, limit 100000$/;
  const LISTENER = /^ERROR: <input>:-1:0: expression recursion limit exceeded: 250$/;
  const VISITOR = /^ERROR: <input>:-1:0: max recursion depth exceeded$/;
  const chain = (term: string, n: number, op: string): string => Array<string>(n).fill(term).join(` ${op} `);
  // [what, rule, the compile error (undefined: accepted, as cel-go accepts it)]
  const rules: [string, Json, RegExp | undefined][] = [
    ['12,000 terms of true &&', { rule: chain('true', 12_000, '&&') }, undefined],
    ['3,000 terms of false ||', { rule: `${chain('false', 3_000, '||')} || true` }, undefined],
    ['50,001 ! before a bool', { rule: `${'!'.repeat(50_001)}false` }, undefined],
    ['5,000 - before an int', { rule: `${'-'.repeat(5_000)}self.n == self.n` }, undefined],
    ['a list of 30,000 literals', { rule: `[${Array<string>(30_000).fill('1').join(',')}].size() > 0` }, undefined],
    ['20,000 terms of +', { rule: `${chain('1', 20_000, '+')} > 0` }, VISITOR],
    ['300 selections', { rule: `self${'.s'.repeat(300)} == ""` }, VISITOR],
    ['300 indexes', { rule: `self${'["s"]'.repeat(300)} == ""` }, VISITOR],
    ['300 nested parentheses', { rule: `${'('.repeat(300)}true${')'.repeat(300)}` }, LISTENER],
    ['300 nested lists', { rule: `${'['.repeat(300)}1${']'.repeat(300)} != []` }, LISTENER],
    ['300 nested ternaries', { rule: `${'true ? true : '.repeat(300)}false` }, LISTENER],
    ['100,001 code points', { rule: `"${'a'.repeat(99_999)}" == ""` }, SIZE],
  ];
  for (const [i, [what, rule, error]] of rules.entries()) {
    it(`a CRD rule of ${what}: ${error ? '422 with cel-go\'s error' : 'accepted, and it runs'}`, async () => {
      const plural = `deep${i}s`;
      const response = await api.send('POST', crds, crd(plural, [rule]));
      if (error) {
        assert.equal(response.status, 422, response.body);
        const [cause] = json(response).details.causes as Json[];
        assert.equal(cause!.field, 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
        assert.match(cause!.message, /^Invalid value: .*: compilation failed: /s);
        assert.match((cause!.message as string).replace(/^[^]*?compilation failed: /, ''), error);
        assert.equal((await api.send('GET', `${crds}/${plural}.example.com`)).status, 404);
        return;
      }
      assert.equal(response.status, 201, response.body);
      await served(plural);
      const kind = `${plural[0]!.toUpperCase()}${plural.slice(1, -1)}`;
      const created = await api.send('POST', `/apis/example.com/v1/namespaces/${NS}/${plural}`, { apiVersion: 'example.com/v1', kind, metadata: { name: 'x' }, spec: { n: 1 } });
      assert.equal(created.status, 201, created.body);
    });
  }

  it('a messageExpression too deep: 422 with cel-go\'s error', async () => {
    const response = await api.send('POST', crds, crd('messages', [{ rule: 'true', messageExpression: `${'('.repeat(300)}"m"${')'.repeat(300)}` }]));
    assert.equal(response.status, 422, response.body);
    assert.match(JSON.stringify(json(response).details.causes), /messageExpression compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250/);
  });

  const policy = (name: string, expression: string): Json => ({
    apiVersion: 'admissionregistration.plat.io/v1beta1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }, validations: [{ expression }] },
  });

  it('an admission policy expression too deep or too long: 422 with cel-go\'s error; a long && chain is accepted', async () => {
    const cases: [string, RegExp][] = [
      [`${chain('1', 20_000, '+')} > 0`, VISITOR],
      [`${'('.repeat(300)}true${')'.repeat(300)}`, LISTENER],
      [`"${'a'.repeat(99_999)}" == ""`, SIZE],
    ];
    for (const [i, [expression, error]] of cases.entries()) {
      const response = await api.send('POST', policies, policy(`deep-${i}`, expression));
      assert.equal(response.status, 422, response.body);
      const [cause] = json(response).details.causes as Json[];
      assert.equal(cause!.field, 'spec.validations[0].expression');
      assert.match((cause!.message as string).replace(/^[^]*?compilation failed: /, ''), error);
    }
    assert.equal((await api.send('POST', policies, policy('long-and', chain('true', 12_000, '&&')))).status, 201);
  });

  it('a policy expression that would square an annotation is stopped by cost, answered at once by its failure policy', async () => {
    assert.equal((await api.send('POST', policies, policy('squares', "object.metadata.annotations['a'].replace('a', object.metadata.annotations['a']).size() > 0"))).status, 201);
    const binding = { apiVersion: 'admissionregistration.plat.io/v1beta1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'squares' }, spec: { policyName: 'squares', validationActions: ['Deny'] } };
    assert.equal((await api.send('POST', '/apis/admissionregistration.plat.io/v1beta1/validatingadmissionpolicybindings', binding)).status, 201);
    const configMap = (length: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${length}-${Date.now()}`, annotations: { a: 'a'.repeat(length) } } });
    // As for CRD rules: past the per-call limit, the expression's error; past the binding's budget, the pass fails.
    const perCall = await until(async () => {
      const response = await api.send('POST', `/api/v1/namespaces/${NS}/configmaps`, configMap(4_000));
      return response.status === 201 ? undefined : response;
    });
    // An error's decision has no reason: upstream's controller.go makes it Invalid, a 422.
    expectStatusOf(perCall, 422, /denied request: expression '.*' resulted in error: operation cancelled: actual cost limit exceeded$/);
    const started = performance.now();
    expectStatusOf(await api.send('POST', `/api/v1/namespaces/${NS}/configmaps`, configMap(20_000)), 422, /denied request: validation failed due to running out of cost budget, no further validation rules will be run$/);
    assert.ok(performance.now() - started < 1_000, 'answered at once');
  });
});

function expectStatusOf(response: Response, code: number, message: RegExp): void {
  assert.equal(response.status, code, response.body);
  assert.match(json(response).message, message);
}

/** A JSON patch that wraps a list in another, again and again: each round adds a level. */
function nestByMoves(levels: number): unknown[] {
  const operations: unknown[] = [{ op: 'add', path: '/x', value: [] }];
  for (let i = 0; i < levels; i++) {
    operations.push({ op: 'add', path: '/y', value: [] }, { op: 'move', from: '/x', path: '/y/-' }, { op: 'move', from: '/y', path: '/x' });
  }
  return operations;
}
