import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, messages, update } from '../testing/harness.js';
import { validatingAdmissionPolicyDefinition } from './validating-admission-policy.js';
import { validatingAdmissionPolicyBindingDefinition, goLabelSelectorString } from './validating-admission-policy-binding.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingAdmissionPolicySpec, ValidatingAdmissionPolicyBindingSpec } from './types.js';

const policyDefinition = validatingAdmissionPolicyDefinition('v1beta1');
const bindingDefinition = validatingAdmissionPolicyBindingDefinition('v1beta1');

const rule = { operations: ['CREATE' as const], apiGroups: [''], apiVersions: ['v1'], resources: ['serviceaccounts'] };

const policy = (spec: Partial<ValidatingAdmissionPolicySpec>, name = 'limit'): ValidatingAdmissionPolicy => ({
  apiVersion: 'admissionregistration.plat.io/v1beta1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'true' }], ...spec },
});

const binding = (spec: Partial<ValidatingAdmissionPolicyBindingSpec>): ValidatingAdmissionPolicyBinding => ({
  apiVersion: 'admissionregistration.plat.io/v1beta1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'limit-binding' },
  spec: { policyName: 'limit', validationActions: ['Deny'], ...spec },
});

test('policy: defaults fill failurePolicy, matchPolicy, both selectors and each rule\'s scope', () => {
  const { object, errors } = create(policyDefinition, policy({}));
  assert.deepEqual(messages(errors), []);
  assert.equal(object.spec?.failurePolicy, 'Fail');
  assert.deepEqual(object.spec?.matchConstraints, { resourceRules: [{ ...rule, scope: '*' }], matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
  assert.equal(object.metadata.generation, 1);
});

test('binding: defaults fill parameterNotFoundAction (Deny) and the match resources\' defaults', () => {
  const { object, errors } = create(bindingDefinition, binding({ paramRef: { name: 'p' }, matchResources: {} }));
  assert.deepEqual(messages(errors), []);
  assert.equal(object.spec?.paramRef?.parameterNotFoundAction, 'Deny');
  assert.deepEqual(object.spec?.matchResources, { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
});

const policyCases: { name: string; spec: Partial<ValidatingAdmissionPolicySpec>; policyName?: string; want: string[] }[] = [
  { name: 'a valid policy', spec: {}, want: [] },
  {
    name: 'no validations and no audit annotations',
    spec: { validations: [] },
    want: [
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ],
  },
  { name: 'no matchConstraints', spec: { matchConstraints: undefined }, want: ['spec.matchConstraints: Required value'] },
  { name: 'matchConstraints without rules', spec: { matchConstraints: {} }, want: ['spec.matchConstraints.resourceRules: Required value'] },
  { name: 'an unknown failurePolicy', spec: { failurePolicy: 'Maybe' as 'Fail' }, want: ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'] },
  {
    name: 'an unknown matchPolicy and operation, a wildcard among operations',
    spec: { matchConstraints: { matchPolicy: 'Fuzzy' as 'Exact', resourceRules: [{ ...rule, operations: ['*', 'CREATE'] }, { ...rule, operations: ['PATCH' as 'CREATE'] }] } },
    want: [
      'spec.matchConstraints.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
      `spec.matchConstraints.resourceRules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if '*' is present, must not specify other operations`,
      'spec.matchConstraints.resourceRules[1].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
    ],
  },
  {
    name: 'rules without groups, versions or resources',
    spec: { matchConstraints: { resourceRules: [{ operations: ['CREATE'] }] } },
    want: [
      'spec.matchConstraints.resourceRules[0].apiGroups: Required value',
      'spec.matchConstraints.resourceRules[0].apiVersions: Required value',
      'spec.matchConstraints.resourceRules[0].resources: Required value',
    ],
  },
  {
    name: 'wildcards mixed with resources',
    spec: { matchConstraints: { resourceRules: [{ ...rule, resources: ['*', 'pods'] }, { ...rule, resources: ['pods/*', 'pods/log'] }] } },
    want: [
      `spec.matchConstraints.resourceRules[0].resources: Invalid value: []string{"*", "pods"}: if '*' is present, must not specify other resources without subresources`,
      `spec.matchConstraints.resourceRules[1].resources[1]: Invalid value: "pods/log": if 'pods/*' is present, must not specify pods/log`,
    ],
  },
  {
    name: 'a bad resource name and a duplicate',
    spec: { matchConstraints: { resourceRules: [{ ...rule, resourceNames: ['a/b', 'x', 'x'] }] } },
    want: [
      `spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "a/b": may not contain '/'`,
      'spec.matchConstraints.resourceRules[0].resourceNames[2]: Duplicate value: "x"',
    ],
  },
  {
    name: 'a bad namespace selector',
    spec: { matchConstraints: { resourceRules: [rule], namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In' }] } } },
    want: ["spec.matchConstraints.namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
  },
  {
    name: 'a paramKind without kind, with a bad version',
    spec: { paramKind: { apiVersion: 'example.com/V1' } },
    want: [
      `spec.paramKind.apiVersion: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      'spec.paramKind.kind: Required value',
    ],
  },
  {
    name: 'an expression that does not compile',
    spec: { validations: [{ expression: 'object.spec.replicas > oops' }] },
    want: [
      "spec.validations[0].expression: Invalid value: \"object.spec.replicas > oops\": compilation failed: ERROR: <input>:1:24: undeclared reference to 'oops' (in container '')\n | object.spec.replicas > oops\n | .......................^",
    ],
  },
  { name: 'an expression that is not a bool', spec: { validations: [{ expression: 'object.metadata.name' }] }, want: ['spec.validations[0].expression: Invalid value: "object.metadata.name": must evaluate to bool'] },
  {
    name: 'params without a paramKind',
    spec: { validations: [{ expression: 'params.x == 1' }] },
    want: ["spec.validations[0].expression: Invalid value: \"params.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^"],
  },
  { name: 'params with a paramKind', spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'params.data.max == "3"' }] }, want: [] },
  {
    name: 'the authorizer and the request, typed',
    spec: { validations: [{ expression: 'authorizer.group("apps").resource("deployments").check("update").allowed() && authorizer.requestResource.check("get").reason() != "x" && request.userInfo.username != ""' }] },
    want: [],
  },
  {
    name: 'a request field that is not declared',
    spec: { validations: [{ expression: 'request.uid == ""' }] },
    want: ["spec.validations[0].expression: Invalid value: \"request.uid == \\\"\\\"\": compilation failed: ERROR: <input>:1:8: undefined field 'uid'\n | request.uid == \"\"\n | .......^"],
  },
  {
    name: 'a messageExpression that is not a string, and a message with a line break',
    spec: { validations: [{ expression: 'true', messageExpression: '1', message: 'a\nb' }] },
    want: ['spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string', 'spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks'],
  },
  {
    name: 'the authorizer in a messageExpression',
    spec: { validations: [{ expression: 'true', messageExpression: 'authorizer.path("/").check("get").reason()' }] },
    want: [
      "spec.validations[0].messageExpression: Invalid value: \"authorizer.path(\\\"/\\\").check(\\\"get\\\").reason()\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.path(\"/\").check(\"get\").reason()\n | ^",
    ],
  },
  { name: 'an unknown reason', spec: { validations: [{ expression: 'true', reason: 'Conflict' }] }, want: ['spec.validations[0].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"'] },
  { name: 'each supported reason', spec: { validations: ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'].map((reason) => ({ expression: 'true', reason })) }, want: [] },
  {
    name: 'variables: read in order, a bad name, an empty expression',
    spec: {
      variables: [
        { name: 'first', expression: 'object.metadata.name' },
        { name: 'second', expression: 'variables.first + "-x"' },
        { name: '1bad', expression: 'true' },
        { name: 'empty', expression: ' ' },
      ],
      validations: [{ expression: 'variables.second != ""' }],
    },
    want: ['spec.variables[2].name: Invalid value: "1bad": name is not a valid CEL identifier', 'spec.variables[3].expression: Required value: expression is not specified'],
  },
  {
    name: 'a variable read before it is declared',
    spec: { variables: [{ name: 'a', expression: 'variables.b' }, { name: 'b', expression: '1' }] },
    want: ["spec.variables[0].expression: Invalid value: \"variables.b\": compilation failed: ERROR: <input>:1:10: undefined field 'b'\n | variables.b\n | .........^"],
  },
  {
    name: 'variables without any declared',
    spec: { validations: [{ expression: 'variables.x' }] },
    want: ["spec.validations[0].expression: Invalid value: \"variables.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.x\n | ^"],
  },
  {
    name: 'match conditions: duplicate names, a bad name, no expression, not a bool',
    spec: {
      matchConditions: [
        { name: 'a', expression: 'true' },
        { name: 'a', expression: 'true' },
        { name: 'bad name', expression: '' },
        { name: 'c', expression: '"x"' },
      ],
    },
    want: [
      'spec.matchConditions[1].name: Duplicate value: "a"',
      'spec.matchConditions[2].expression: Required value',
      `spec.matchConditions[2].name: Invalid value: "bad name": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'spec.matchConditions[3].expression: Invalid value: "\\"x\\"": must evaluate to bool',
    ],
  },
  {
    name: 'more than 64 match conditions',
    spec: { matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) },
    want: ['spec.matchConditions: Too many: 65: must have at most 64 items'],
  },
  {
    name: 'audit annotations: a duplicate key, a bad key, a number value',
    spec: {
      validations: [],
      auditAnnotations: [
        { key: 'replicas', valueExpression: '"x"' },
        { key: 'replicas', valueExpression: 'null' },
        { key: 'bad key', valueExpression: 'string(1)' },
        { key: 'n', valueExpression: '1' },
      ],
    },
    want: [
      'spec.auditAnnotations[1].key: Duplicate value: "replicas"',
      `spec.auditAnnotations[2].key: Invalid value: "limit/bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'spec.auditAnnotations[3].valueExpression: Invalid value: "1": must evaluate to one of [string null_type]',
    ],
  },
];

for (const c of policyCases) {
  test(`policy validation: ${c.name}`, () => {
    assert.deepEqual(messages(create(policyDefinition, policy(c.spec, c.policyName)).errors), c.want);
  });
}

test('policy update: the generation counts spec changes, not a spec sent without its defaults', () => {
  const stored = create(policyDefinition, policy({})).object;
  stored.status = { observedGeneration: 1 };
  const same = update(policyDefinition, policy({}), stored);
  assert.deepEqual(messages(same.errors), []);
  assert.equal(same.object.metadata.generation, 1);
  assert.deepEqual(same.object.status, { observedGeneration: 1 }, 'the status is the server\'s');
  const changed = update(policyDefinition, policy({ validations: [{ expression: 'false' }] }), stored);
  assert.equal(changed.object.metadata.generation, 2);
});

test('policy update: stored match conditions are not compiled again unless they change', () => {
  const stored = create(policyDefinition, policy({})).object;
  stored.spec!.matchConditions = [{ name: 'c', expression: 'object.nope()' }];
  const unchanged = update(policyDefinition, { ...policy({}), spec: { ...stored.spec } }, stored);
  assert.deepEqual(messages(unchanged.errors), []);
  const changed = update(policyDefinition, { ...policy({}), spec: { ...stored.spec, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } }, stored);
  assert.equal(changed.errors.length, 1);
});

test('policy status: warnings need a fieldRef and a warning; conditions upstream\'s rules', () => {
  const stored = create(policyDefinition, policy({})).object;
  const status = policyDefinition.subresources.status;
  const next = status.merge(
    {
      ...structuredClone(stored),
      spec: { validations: [] },
      metadata: { ...stored.metadata, generation: 9 },
      status: {
        observedGeneration: 1,
        typeChecking: { expressionWarnings: [{ fieldRef: '', warning: '' }] },
        conditions: [{ type: 'Ready', status: 'Maybe', lastTransitionTime: '', reason: '', message: '' }],
      },
    },
    structuredClone(stored),
  );
  assert.deepEqual(next.spec, stored.spec, 'the spec is not the status subresource\'s');
  assert.equal(next.metadata.generation, 1);
  assert.deepEqual(messages(status.validateUpdate(next)), [
    'status.typeChecking.expressionWarnings[0].warning: Required value',
    'status.typeChecking.expressionWarnings[0].fieldRef: Required value',
    'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
    'status.conditions[0].lastTransitionTime: Required value: must be set',
    'status.conditions[0].reason: Required value: must be set',
  ]);
});

const bindingCases: { name: string; spec: Partial<ValidatingAdmissionPolicyBindingSpec>; want: string[] }[] = [
  { name: 'a valid binding', spec: {}, want: [] },
  { name: 'no policy name', spec: { policyName: '' }, want: ['spec.policyName: Required value'] },
  { name: 'no actions', spec: { validationActions: [] }, want: ['spec.validationActions: Required value: at least one validation action is required'] },
  {
    name: 'Deny with Warn, a duplicate, an unknown action',
    spec: { validationActions: ['Deny', 'Warn', 'Warn', 'Log' as 'Deny'] },
    want: [
      'spec.validationActions[2]: Duplicate value: "Warn"',
      'spec.validationActions[3]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Warn", "Log"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ],
  },
  {
    name: 'a paramRef with both name and selector',
    spec: { paramRef: { name: 'p', selector: {}, parameterNotFoundAction: 'Allow' } },
    want: ['spec.paramRef.name: Forbidden: name and selector are mutually exclusive', 'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive'],
  },
  { name: 'a paramRef with neither', spec: { paramRef: { namespace: 'x' } }, want: ['spec.paramRef: Required value: one of name or selector must be specified'] },
  { name: 'an unknown parameterNotFoundAction', spec: { paramRef: { name: 'p', parameterNotFoundAction: 'Ignore' as 'Deny' } }, want: ['spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"'] },
  { name: 'bad match resources, at upstream\'s misspelt path', spec: { matchResources: { matchPolicy: 'Exact', resourceRules: [{ operations: ['CREATE'] }] } }, want: [
    'spec.matchResouces.resourceRules[0].apiGroups: Required value',
    'spec.matchResouces.resourceRules[0].apiVersions: Required value',
    'spec.matchResouces.resourceRules[0].resources: Required value',
  ] },
];

for (const c of bindingCases) {
  test(`binding validation: ${c.name}`, () => {
    assert.deepEqual(messages(create(bindingDefinition, binding(c.spec)).errors), c.want);
  });
}

test('binding: the ParamRef column prints a selector as Go does', () => {
  assert.equal(
    goLabelSelectorString({ matchLabels: { tier: 'gold', a: 'b' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] }),
    '&LabelSelector{MatchLabels:map[string]string{a: b,tier: gold,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[prod dev],},},}',
  );
});
