// What a decision says of the time its expression ran (the check duration metric's observation):
// the expression's own evaluation in seconds, and 0 where nothing was evaluated for it. The timed
// expressions walk 200 labels, long enough for the clock to see them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compilePolicy } from './compiled-policy.js';
import { policyActivation } from './policy-activation.js';
import { ExpressionTimer } from '@plat/cel';
import { evaluatePolicy } from './policy-validator.js';
import type { ValidatingAdmissionPolicySpec } from './types.js';

const activation = policyActivation({
  object: { metadata: { name: 'x', labels: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, `v${i}`])) } },
  oldObject: undefined,
  request: { operation: 'CREATE', name: 'x', namespace: 'shop' },
  requestResource: { group: '', version: 'v1', resource: 'serviceaccounts' },
  subresource: '',
  name: 'x',
  namespace: 'shop',
  user: { name: 'alice', groups: [] },
  namespaceObject: undefined,
  authorizer: { authorize: () => ({ decision: 'NoOpinion', reason: '' }) },
});

const rules = { resourceRules: [{ operations: ['CREATE' as const], apiGroups: [''], apiVersions: ['v1'], resources: ['serviceaccounts'] }] };

/** Each decision's and audit annotation's elapsed: 'timed' when the expression ran, 0 when not. */
const cases: { name: string; spec: ValidatingAdmissionPolicySpec; decisions: ('timed' | 0)[]; annotations?: ('timed' | 0)[]; actions?: string[] }[] = [
  { name: 'a validation that passes', spec: { validations: [{ expression: 'object.metadata.labels.all(k, k.startsWith("k"))' }] }, decisions: ['timed'] },
  { name: 'a validation that fails', spec: { validations: [{ expression: 'object.metadata.labels.all(k, k.startsWith("x"))' }] }, decisions: ['timed'] },
  { name: 'a validation that errs at run time', spec: { validations: [{ expression: 'object.spec.replicas > 1' }] }, decisions: ['timed'] },
  { name: 'a validation that does not compile is not run', spec: { validations: [{ expression: 'object.metadata.name +' }, { expression: 'true' }] }, decisions: [0, 'timed'] },
  {
    name: 'validations past the binding budget: the pass fails as a whole',
    spec: { validations: [{ expression: 'object.metadata.labels.all(k, k.startsWith("k"))' }] },
    decisions: [0],
  },
  {
    name: 'audit annotations are timed as validations',
    spec: {
      auditAnnotations: [
        { key: 'k', valueExpression: 'object.metadata.labels.exists(k, k == "k199") ? "found" : ""' },
        { key: 'n', valueExpression: 'string(object.metadata.labels.filter(k, k.startsWith("k1"))[500])' },
      ],
    },
    decisions: [],
    annotations: ['timed', 'timed'],
    actions: ['publish', 'error'],
  },
];

describe('policy decisions: elapsed', () => {
  for (const { name, spec, decisions, annotations = [], actions } of cases) {
    it(name, () => {
      const policy = compilePolicy({ metadata: { name: 'p', uid: 'u', generation: 1 }, spec: { matchConstraints: rules, ...spec } });
      const budget = name.includes('budget') ? 10 : undefined;
      const started = performance.now();
      const result = evaluatePolicy(policy, activation, budget);
      const wall = (performance.now() - started) / 1000;
      const check = (elapsed: number[], expected: ('timed' | 0)[]) => {
        assert.equal(elapsed.length, expected.length);
        expected.forEach((want, i) => {
          if (want === 0) assert.equal(elapsed[i], 0);
          // In seconds: more than nothing, no more than the whole call took.
          else assert.ok(elapsed[i]! > 0 && elapsed[i]! <= wall, `${elapsed[i]} s of ${wall} s`);
        });
      };
      check(result.decisions.map((d) => d.elapsed), decisions);
      check(result.auditAnnotations.map((a) => a.elapsed), annotations);
      if (actions) assert.deepEqual(result.auditAnnotations.map((a) => a.action), actions);
    });
  }
});

describe('policy decisions: the time bound', () => {
  const slow = 'object.metadata.labels.all(k, k.startsWith("k"))';
  /** A request whose time has already run out: each comprehension stops at its first reading of the clock. */
  const expired = (): ExpressionTimer => {
    const timer = new ExpressionTimer();
    timer.expire();
    return timer;
  };
  const decide = (spec: Partial<ValidatingAdmissionPolicySpec>) =>
    evaluatePolicy(compilePolicy({ metadata: { name: 'p', uid: 'u', generation: 1 }, spec: { matchConstraints: rules, ...spec } }), activation, undefined, expired()).decisions;

  it('a validation out of time is an error, as upstream\'s when the request\'s context is done: denied under Fail', () => {
    assert.deepEqual(
      decide({ validations: [{ expression: slow }] }).map(({ action, evaluation, message }) => ({ action, evaluation, message })),
      [{ action: 'deny', evaluation: 'error', message: `expression '${slow}' resulted in error: operation interrupted` }],
    );
  });
  it('admitted under Ignore', () => {
    assert.deepEqual(decide({ failurePolicy: 'Ignore', validations: [{ expression: slow }] }).map((d) => d.action), ['admit']);
  });
  it('a variable out of time fails the validations that read it', () => {
    const [decision] = decide({ variables: [{ name: 'keys', expression: 'object.metadata.labels.filter(k, true)' }], validations: [{ expression: 'variables.keys.size() > 0' }] });
    assert.equal(decision!.message, `expression 'variables.keys.size() > 0' resulted in error: composited variable "keys" fails to evaluate: operation interrupted`);
  });
});
