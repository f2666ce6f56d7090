// x-kubernetes-validations end to end, in k8s.io mode with the real kubectl against an apiserver on
// etcd: the six cases of upstream's e2e (test/e2e/apimachinery/crd_validation_rules.go): a rule
// that holds and one that fails, a rule on an undefined field and one with a syntax error refused
// at CRD create, a rule over the estimated cost budget refused at CRD create, a nested all() that
// passes the per-call limit at runtime, and a transition rule.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { adminTokenFile, eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { writeKubeconfig, kubectlIn } from './support/kubeconfig.js';

const GROUP = 'rules.example.com';

/** A namespaced CRD `<plural>.rules.example.com` with one version, v1, of this schema. */
const crd = (plural: string, kind: string, schema: unknown) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural, singular: kind.toLowerCase(), kind },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
});

const spec = (properties: unknown, rules?: unknown) => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...(rules ? { 'x-kubernetes-validations': rules } : {}) } },
});

describe('x-kubernetes-validations: kubectl against an apiserver on etcd (k8s.io)', () => {
  let etcd: TestEtcd;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let apiserver: ApiserverProcess;
  let kubeconfig: { path: string; cleanup: () => Promise<void> };
  let workDir: string;

  const kubectl = async (...args: string[]): Promise<string> =>
    (await kubectlIn(kubeconfig.path, workDir, args)).stdout;
  const file = async (name: string, content: unknown): Promise<string> => {
    const path = join(workDir, name);
    await writeFile(path, JSON.stringify(content));
    return path;
  };
  const establish = async (definition: ReturnType<typeof crd>): Promise<void> => {
    await kubectl('create', '-f', await file(`${definition.metadata.name}.json`, definition));
    await kubectl('wait', '--for=condition=Established', `crd/${definition.metadata.name}`, '--timeout=10s');
    await eventually('served', async () => (await apiserver.request(`/apis/${GROUP}/v1`, { token: tokens.token })).status === 200);
  };
  const object = (kind: string, name: string, body: unknown) => ({ apiVersion: `${GROUP}/v1`, kind, metadata: { name, namespace: 'default' }, spec: body });
  const stderrOf = async (promise: Promise<unknown>): Promise<string> => {
    try {
      await promise;
    } catch (error) {
      return (error as { stderr: string }).stderr;
    }
    assert.fail('kubectl should have failed');
  };

  before(async () => {
    etcd = await sharedEtcd();
    tokens = await adminTokenFile();
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-crd-rules-'));
    apiserver = await startApiserver([...etcd.flags, `--token-auth-file=${tokens.file}`, '--api-domain=k8s.io']);
    await eventually('readyz', async () => (await apiserver.request('/readyz')).status === 200);
    kubeconfig = await writeKubeconfig(apiserver, tokens.token);
  });
  after(async () => {
    await apiserver?.stop();
    await etcd?.stop();
    await kubeconfig?.cleanup();
    await tokens?.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('a custom resource that satisfies the rules is created; one that does not is refused with the rule', async () => {
    await establish(crd('sums', 'Sum', spec({ x: { type: 'integer' }, y: { type: 'integer' } }, [{ rule: 'self.x + self.y > 0' }])));
    await kubectl('create', '-f', await file('good.json', object('Sum', 'good', { x: 1, y: 0 })));
    const stderr = await stderrOf(kubectl('create', '-f', await file('bad.json', object('Sum', 'bad', { x: 0, y: 0 }))));
    assert.match(stderr, /The Sum "bad" is invalid: spec: Invalid value: "object": failed rule: self\.x \+ self\.y > 0/);
  });

  it('a CRD whose rule refers to a property that does not exist is refused', async () => {
    const stderr = await stderrOf(kubectl('create', '-f', await file('undefined.json', crd('zeds', 'Zed', spec({ x: { type: 'integer' } }, [{ rule: 'self.z == 100' }])))));
    assert.match(stderr, /compilation failed: ERROR: <input>:1:5: undefined field 'z'/);
  });

  it('a CRD whose rule has a syntax error is refused', async () => {
    const stderr = await stderrOf(kubectl('create', '-f', await file('syntax.json', crd('syntaxes', 'Syntax', spec({ x: { type: 'integer' } }, [{ rule: 'self.x >' }])))));
    assert.match(stderr, /compilation failed: ERROR: <input>:1:9: Syntax error/);
  });

  it('a CRD whose rule is estimated over the cost budget is refused', async () => {
    const list = { type: 'array', items: { type: 'string' } };
    const stderr = await stderrOf(kubectl('create', '-f', await file('costly.json', crd('costlies', 'Costly', spec({ list }, [{ rule: 'self.list.all(x, self.list.all(y, x == y))' }])))));
    assert.match(stderr, /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x/);
  });

  it('a nested all() over 725 items is accepted at CRD create and stopped at runtime by the per-call limit', async () => {
    const list = { type: 'array', maxItems: 725, items: { type: 'string', maxLength: 10 } };
    await establish(crd('pairs', 'Pair', spec({ list }, [{ rule: 'self.list.all(x, self.list.all(y, x == y))' }])));
    const body = { list: Array.from({ length: 725 }, () => 'a') };
    const stderr = await stderrOf(kubectl('create', '-f', await file('pairs.json', object('Pair', 'many', body))));
    assert.match(stderr, /no further validation rules will be run due to call cost exceeds limit for rule: self\.list\.all\(x, self\.list\.all\(y, x == y\)\)/);
    // Within the limit, the same rule runs.
    await kubectl('create', '-f', await file('few.json', object('Pair', 'few', { list: ['a', 'a'] })));
  });

  it('a transition rule allows the create and refuses an update that breaks it', async () => {
    await establish(crd('counters', 'Counter', spec({ value: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > oldSelf' }] } })));
    await kubectl('create', '-f', await file('counter.json', object('Counter', 'c', { value: 10 })));
    const stderr = await stderrOf(kubectl('patch', 'counters', 'c', '--type=merge', '-p', '{"spec":{"value":9}}'));
    assert.match(stderr, /The Counter "c" is invalid: spec\.value: Invalid value: "integer": failed rule: self > oldSelf/);
    await kubectl('patch', 'counters', 'c', '--type=merge', '-p', '{"spec":{"value":11}}');
    assert.equal(await kubectl('get', 'counters', 'c', '-o', 'jsonpath={.spec.value}'), '11');
  });
});
