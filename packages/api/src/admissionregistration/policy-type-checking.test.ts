import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveResource } from '@plat/registry';
import { builtinDefinitions } from '../index.js';
import { typeCheckPolicy, type KindResolver } from './policy-type-checking.js';
import type { ValidatingAdmissionPolicySpec } from './types.js';

const resolved = builtinDefinitions.map((d) => resolveResource(d, 'k8s.io'));
const kinds: KindResolver = {
  byResource: (group, version, resource) => {
    const r = resolved.find((x) => x.group === group && x.version === version && x.resource === resource);
    return r && { group: r.group, version: r.version, kind: r.kind, schema: r.definition.schema };
  },
  byKind: (group, version, kind) => {
    const r = resolved.find((x) => x.group === group && x.version === version && x.kind === kind);
    return r && { group: r.group, version: r.version, kind: r.kind, schema: r.definition.schema };
  },
};

const check = (spec: ValidatingAdmissionPolicySpec) => typeCheckPolicy({ metadata: { name: 'p' }, spec }, kinds);
const rule = (resources: string[], apiGroups = [''], apiVersions = ['v1']) => ({ operations: ['CREATE' as const], apiGroups, apiVersions, resources });

test('type checking: each exactly named kind, its schema\'s fields, warnings per expression and kind', () => {
  const warnings = check({
    matchConstraints: { resourceRules: [rule(['serviceaccounts', 'configmaps'])] },
    validations: [
      { expression: 'object.metadata.name != ""' },
      { expression: 'object.data.size() > 0', messageExpression: 'object.secrets[0].name' },
    ],
  });
  assert.deepEqual(warnings, [
    { fieldRef: 'spec.validations[1].expression', warning: "/v1, Kind=ServiceAccount: ERROR: <input>:1:7: undefined field 'data'\n | object.data.size() > 0\n | ......^\n" },
    { fieldRef: 'spec.validations[1].messageExpression', warning: "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'secrets'\n | object.secrets[0].name\n | ......^\n" },
  ]);
});

test('type checking: wildcards and subresources name no kind to check', () => {
  assert.deepEqual(check({ matchConstraints: { resourceRules: [rule(['*']), rule(['serviceaccounts'], ['*']), rule(['serviceaccounts/token'])] }, validations: [{ expression: 'object.nope' }] }), []);
});

test('type checking: params typed by the paramKind\'s schema; variables and the authorizer declared', () => {
  const warnings = check({
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: { resourceRules: [rule(['serviceaccounts'])] },
    variables: [{ name: 'n', expression: 'object.metadata.name' }],
    validations: [
      { expression: 'params.data.max == variables.n && authorizer.requestResource.check("get").allowed()' },
      { expression: 'params.spec.max == 1' },
    ],
  });
  assert.deepEqual(warnings.map((w) => w.fieldRef), ['spec.validations[1].expression']);
  assert.match(warnings[0]!.warning, /^\/v1, Kind=ServiceAccount: ERROR: <input>:1:7: undefined field 'spec'/);
});
