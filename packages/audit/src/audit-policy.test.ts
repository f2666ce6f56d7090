import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateAuditPolicy, parseAuditPolicy, type AuditAttributes, type AuditPolicy, type AuditPolicyRule } from './audit-policy.js';

const resource = (more: Partial<AuditAttributes> = {}): AuditAttributes => ({
  user: { name: 'alice', groups: ['dev', 'system:authenticated'] },
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/team/pods/web',
  namespace: 'team',
  apiGroup: '',
  resource: 'pods',
  subresource: '',
  name: 'web',
  ...more,
});
const nonResource = (path: string): AuditAttributes => resource({ isResourceRequest: false, path, namespace: '', resource: '', name: '' });

describe('audit policy: which rule matches, one row per rule field', () => {
  const rows: Array<{ rule: string; when: Omit<AuditPolicyRule, 'level'>; matches: AuditAttributes[]; not: AuditAttributes[] }> = [
    { rule: 'no conditions: everything', when: {}, matches: [resource(), nonResource('/healthz')], not: [] },
    { rule: 'users', when: { users: ['alice'] }, matches: [resource()], not: [resource({ user: { name: 'bob', groups: [] } }), resource({ user: undefined })] },
    { rule: 'userGroups: any group of the user', when: { userGroups: ['ops', 'dev'] }, matches: [resource()], not: [resource({ user: { name: 'alice', groups: ['ops2'] } })] },
    { rule: 'verbs', when: { verbs: ['get', 'list'] }, matches: [resource()], not: [resource({ verb: 'create' })] },
    { rule: 'namespaces: resource requests in them', when: { namespaces: ['team'] }, matches: [resource()], not: [resource({ namespace: 'other' }), nonResource('/healthz')] },
    { rule: 'namespaces: "" is cluster-scoped resources', when: { namespaces: [''] }, matches: [resource({ namespace: '', resource: 'nodes' })], not: [resource()] },
    { rule: 'resources: the group alone', when: { resources: [{ group: '' }] }, matches: [resource()], not: [resource({ apiGroup: 'apps' })] },
    { rule: 'resources: named resources of the group', when: { resources: [{ group: '', resources: ['pods'] }] }, matches: [resource()], not: [resource({ resource: 'secrets' }), resource({ subresource: 'log' })] },
    { rule: 'resources: resourceNames', when: { resources: [{ resources: ['pods'], resourceNames: ['web'] }] }, matches: [resource()], not: [resource({ name: 'db' })] },
    { rule: 'resources: a subresource', when: { resources: [{ resources: ['pods/log'] }] }, matches: [resource({ subresource: 'log' })], not: [resource()] },
    { rule: 'resources: */subresource', when: { resources: [{ resources: ['*/status'] }] }, matches: [resource({ subresource: 'status' })], not: [resource(), resource({ subresource: 'log' })] },
    { rule: 'resources: resource/*', when: { resources: [{ resources: ['pods/*'] }] }, matches: [resource({ subresource: 'exec' })], not: [resource({ resource: 'secrets', subresource: 'x' })] },
    { rule: 'resources: *', when: { resources: [{ group: 'apps', resources: ['*'] }] }, matches: [resource({ apiGroup: 'apps', resource: 'deployments' })], not: [resource()] },
    { rule: 'resources never match a non-resource request', when: { resources: [{ group: '' }] }, matches: [], not: [nonResource('/api')] },
    { rule: 'nonResourceURLs: exact', when: { nonResourceURLs: ['/healthz'] }, matches: [nonResource('/healthz')], not: [nonResource('/healthz/etcd'), resource()] },
    { rule: 'nonResourceURLs: a prefix with *', when: { nonResourceURLs: ['/healthz*'] }, matches: [nonResource('/healthz'), nonResource('/healthz/etcd')], not: [nonResource('/livez')] },
    { rule: 'nonResourceURLs: *', when: { nonResourceURLs: ['*'] }, matches: [nonResource('/metrics')], not: [resource()] },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const policy: AuditPolicy = { rules: [{ level: 'Request', ...row.when }] };
      for (const attrs of row.matches) assert.equal(evaluateAuditPolicy(policy, attrs).level, 'Request', JSON.stringify(attrs));
      for (const attrs of row.not) assert.equal(evaluateAuditPolicy(policy, attrs).level, 'None', JSON.stringify(attrs));
    });
  }
});

test('audit policy: the first matching rule decides; no match is None; stages and omitManagedFields combine as upstream', () => {
  const policy: AuditPolicy = {
    omitStages: ['RequestReceived'],
    omitManagedFields: true,
    rules: [
      { level: 'None', users: ['system:kube-proxy'] },
      { level: 'RequestResponse', resources: [{ resources: ['pods'] }], omitStages: ['ResponseStarted'], omitManagedFields: false },
      { level: 'Metadata', namespaces: ['team'] },
    ],
  };
  const pods = evaluateAuditPolicy(policy, resource());
  assert.deepEqual([pods.level, [...pods.omitStages].sort(), pods.omitManagedFields], ['RequestResponse', ['RequestReceived', 'ResponseStarted'], false]);
  const secrets = evaluateAuditPolicy(policy, resource({ resource: 'secrets' }));
  assert.deepEqual([secrets.level, [...secrets.omitStages], secrets.omitManagedFields], ['Metadata', ['RequestReceived'], true]);
  assert.equal(evaluateAuditPolicy(policy, resource({ user: { name: 'system:kube-proxy', groups: [] } })).level, 'None');
  assert.equal(evaluateAuditPolicy(policy, nonResource('/version')).level, 'None');
});

describe('audit policy: the file, as upstream decodes and checks it', () => {
  const head = 'apiVersion: audit.plat.io/v1\nkind: Policy\n';
  test('a policy in YAML', () => {
    const policy = parseAuditPolicy(`${head}omitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources: [{group: "", resources: [secrets]}]\n  omitManagedFields: true\n`, 'plat.io');
    assert.deepEqual(policy, { rules: [{ level: 'Metadata', resources: [{ group: '', resources: ['secrets'] }], omitManagedFields: true }], omitStages: ['RequestReceived'] });
  });
  const refused: Array<[string, string, RegExp | string]> = [
    ['another group', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None}]\n', /expected apiVersion audit\.plat\.io\/v1 and kind Policy/],
    ['no rules', `${head}rules: []\n`, 'loaded illegal policy with 0 rules'],
    ['an unknown level', `${head}rules: [{level: Everything}]\n`, 'invalid audit policy: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"'],
    ['an unknown stage', `${head}omitStages: [Done]\nrules: [{level: None}]\n`, 'invalid audit policy: omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic'],
    [
      'resources and non-resource URLs in one rule',
      `${head}rules: [{level: None, namespaces: [a], nonResourceURLs: [/x]}]\n`,
      /rules\[0\]\.nonResourceURLs: Invalid value: .*rules cannot apply to both regular resources and non-resource URLs/,
    ],
    ['a URL without its slash', `${head}rules: [{level: None, nonResourceURLs: [healthz]}]\n`, /non-resource URL rules must begin with a '\/' character/],
    ['a wildcard inside a URL', `${head}rules: [{level: None, nonResourceURLs: ['/a*/b']}]\n`, /non-resource URL wildcards '\*' must be the final character of the rule/],
    ['resourceNames without resources', `${head}rules: [{level: None, resources: [{resourceNames: [x]}]}]\n`, /using resourceNames requires at least one resource/],
    ['a group that is no DNS name', `${head}rules: [{level: None, resources: [{group: Apps}]}]\n`, /rules\[0\]\.resources\[0\]\.group: Invalid value: "Apps"/],
    ['not YAML', `${head}rules: [\n`, /Error: failed decoding: /],
  ];
  for (const [name, text, message] of refused) {
    test(`refused: ${name}`, () => assert.throws(() => parseAuditPolicy(text, 'plat.io'), typeof message === 'string' ? { message } : message));
  }
});
