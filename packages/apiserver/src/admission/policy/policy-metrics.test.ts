// The apiserver_validating_admission_policy_* metrics as 1.28 has them: their names, HELP, labels
// and buckets; which checks count and under which enforcement action (a failed validation under
// each of its binding's actions, an error let through as allow, an audit annotation's error as
// deny) and which do not (a pass, what match conditions exclude, configuration errors); and the
// policies counted as they join a replica's set.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ValidatingAdmissionPolicyBindingSpec, ValidatingAdmissionPolicySpec } from '@plat/api';
import { MetricsStability } from '@plat/serving';
import { Registry } from 'prom-client';
import { admin, policyHarness, type PolicyHarness } from './policy-test-support.js';
import { PolicyMetrics } from './policy-metrics.js';

const CHECKS = 'apiserver_validating_admission_policy_check_total';
const DURATION = 'apiserver_validating_admission_policy_check_duration_seconds';
const DEFINITIONS = 'apiserver_validating_admission_policy_definition_total';

/** A metric's values by their labels (`a="1",b="2"` in the metric's order) and sample name. */
async function samples(registry: Registry, name: string): Promise<Map<string, number>> {
  const metric = registry.getSingleMetric(name);
  const values = new Map<string, number>();
  if (!metric) return values;
  // A histogram's samples name their series (_bucket, _sum, _count).
  const got = (await metric.get()).values as { labels: Record<string, string | number>; value: number; metricName?: string }[];
  for (const { labels, value, metricName } of got) {
    const text = Object.entries(labels)
      .map(([k, v]) => `${k}="${v}"`)
      .join(',');
    values.set(`${metricName ?? name}{${text}}`, value);
  }
  return values;
}

describe('apiserver_validating_admission_policy_* as declared', () => {
  it('names, HELP with the ALPHA class, TYPE, labels and 1.28\'s buckets', async () => {
    const registry = new Registry();
    const metrics = new PolicyMetrics(new MetricsStability(registry));
    metrics.binding('p', 'b').record('deny', 0.002);
    metrics.definitionAdded();
    const text = await registry.metrics();
    const series = 'policy="p",policy_binding="b",enforcement_action="deny",state="active"';
    for (const line of [
      `# HELP ${CHECKS} [ALPHA] Validation admission policy check total, labeled by policy and further identified by binding, enforcement action taken, and state.`,
      `# TYPE ${CHECKS} counter`,
      `${CHECKS}{${series}} 1`,
      `# HELP ${DURATION} [ALPHA] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding, state and enforcement action taken.`,
      `# TYPE ${DURATION} histogram`,
      `${DURATION}_bucket{le="5e-7",${series}} 0`,
      `${DURATION}_bucket{le="0.001",${series}} 0`,
      `${DURATION}_bucket{le="0.01",${series}} 1`,
      `${DURATION}_bucket{le="0.1",${series}} 1`,
      `${DURATION}_bucket{le="1",${series}} 1`,
      `${DURATION}_bucket{le="+Inf",${series}} 1`,
      `${DURATION}_sum{${series}} 0.002`,
      `${DURATION}_count{${series}} 1`,
      `# HELP ${DEFINITIONS} [ALPHA] Validation admission policy count total, labeled by state and enforcement action.`,
      `# TYPE ${DEFINITIONS} counter`,
      `${DEFINITIONS}{state="active",enforcement_action="deny"} 1`,
    ]) {
      assert.ok(text.split('\n').includes(line), `missing: ${line}\n${text}`);
    }
    // Only the buckets above.
    assert.equal(text.split('\n').filter((l) => l.startsWith(`${DURATION}_bucket`)).length, 6);
  });

  it('a binding keeps its series: a second record adds to the first', async () => {
    const registry = new Registry();
    const metrics = new PolicyMetrics(new MetricsStability(registry));
    metrics.binding('p', 'b').record('warn', 0.5);
    metrics.binding('p', 'b').record('warn', 0.25);
    const values = await samples(registry, DURATION);
    const series = 'policy="p",policy_binding="b",enforcement_action="warn",state="active"';
    assert.equal(values.get(`${DURATION}_count{${series}}`), 2);
    assert.equal(values.get(`${DURATION}_sum{${series}}`), 0.75);
    assert.equal((await samples(registry, CHECKS)).get(`${CHECKS}{${series}}`), 2);
  });
});

const saRule = { operations: ['CREATE' as const], apiGroups: [''], apiVersions: ['v1'], resources: ['serviceaccounts'] };
/** 200 labels to walk: an expression over them runs long enough for the clock to see it. */
const manyLabels = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, `v${i}`]));
const SLOW_FALSE = 'object.metadata.labels.all(k, k.startsWith("x"))';

interface Case {
  name: string;
  policy: ValidatingAdmissionPolicySpec;
  bindings: Record<string, Omit<ValidatingAdmissionPolicyBindingSpec, 'policyName'>>;
  /** ConfigMaps created in shop first (the params), by name and labels. */
  params?: Record<string, Record<string, string>>;
  refused: boolean;
  /** check_total's increments, by `<binding>/<enforcement action>`; every other series unchanged. */
  checks: Record<string, number>;
}

const cases: Case[] = [
  { name: 'a validation that passes counts nothing', policy: { validations: [{ expression: 'object.metadata.name != ""' }] }, bindings: { b: { validationActions: ['Deny'] } }, refused: false, checks: {} },
  {
    name: 'Deny: each failed validation counts a deny',
    policy: { validations: [{ expression: SLOW_FALSE }, { expression: 'object.metadata.name == "nope"' }, { expression: 'true' }] },
    bindings: { b: { validationActions: ['Deny'] } },
    refused: true,
    checks: { 'b/deny': 2 },
  },
  { name: 'Warn counts warn', policy: { validations: [{ expression: SLOW_FALSE }] }, bindings: { b: { validationActions: ['Warn'] } }, refused: false, checks: { 'b/warn': 1 } },
  { name: 'Audit counts audit', policy: { validations: [{ expression: SLOW_FALSE }] }, bindings: { b: { validationActions: ['Audit'] } }, refused: false, checks: { 'b/audit': 1 } },
  {
    name: 'a binding with Deny and Audit counts under both',
    policy: { validations: [{ expression: SLOW_FALSE }] },
    bindings: { b: { validationActions: ['Deny', 'Audit'] } },
    refused: true,
    checks: { 'b/deny': 1, 'b/audit': 1 },
  },
  {
    name: 'each binding counts under its own name',
    policy: { validations: [{ expression: SLOW_FALSE }] },
    bindings: { one: { validationActions: ['Warn'] }, two: { validationActions: ['Audit'] } },
    refused: false,
    checks: { 'one/warn': 1, 'two/audit': 1 },
  },
  {
    name: 'an expression that errs, failurePolicy Fail: counted under the binding\'s actions',
    policy: { failurePolicy: 'Fail', validations: [{ expression: 'object.spec.replicas > 1' }] },
    bindings: { b: { validationActions: ['Warn'] } },
    refused: false,
    checks: { 'b/warn': 1 },
  },
  {
    name: 'an expression that errs, failurePolicy Ignore: counted as allow',
    policy: { failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.replicas > 1' }, { expression: 'true' }] },
    bindings: { b: { validationActions: ['Deny'] } },
    refused: false,
    checks: { 'b/allow': 1 },
  },
  {
    name: 'match conditions that exclude the request: nothing counted',
    policy: { matchConditions: [{ name: 'never', expression: 'false' }], validations: [{ expression: 'false' }] },
    bindings: { b: { validationActions: ['Deny'] } },
    refused: false,
    checks: {},
  },
  {
    name: 'a match condition that errs, failurePolicy Fail: one deny',
    policy: { failurePolicy: 'Fail', matchConditions: [{ name: 'errs', expression: 'object.spec.replicas > 1' }], validations: [{ expression: 'false' }, { expression: 'false' }] },
    bindings: { b: { validationActions: ['Deny'] } },
    refused: true,
    checks: { 'b/deny': 1 },
  },
  {
    name: 'a match condition that errs, failurePolicy Ignore: nothing counted',
    policy: { failurePolicy: 'Ignore', matchConditions: [{ name: 'errs', expression: 'object.spec.replicas > 1' }], validations: [{ expression: 'false' }] },
    bindings: { b: { validationActions: ['Deny'] } },
    refused: false,
    checks: {},
  },
  {
    name: 'an audit annotation that errs, failurePolicy Fail: a deny whatever the binding\'s actions',
    policy: { failurePolicy: 'Fail', auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }] },
    bindings: { b: { validationActions: ['Audit'] } },
    refused: true,
    checks: { 'b/deny': 1 },
  },
  {
    name: 'an audit annotation that errs, failurePolicy Ignore: nothing counted',
    policy: { failurePolicy: 'Ignore', auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }] },
    bindings: { b: { validationActions: ['Deny'] } },
    refused: false,
    checks: {},
  },
  {
    name: 'a configuration error (params not found, Deny) refuses and counts nothing',
    policy: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'false' }] },
    bindings: { b: { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' }, validationActions: ['Deny'] } },
    refused: true,
    checks: {},
  },
  {
    name: 'params not found, Allow: nothing evaluated, nothing counted',
    policy: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'false' }] },
    bindings: { b: { paramRef: { name: 'absent', parameterNotFoundAction: 'Allow' }, validationActions: ['Deny'] } },
    refused: false,
    checks: {},
  },
  {
    name: 'each parameter object a selector finds counts apart',
    policy: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'params.data.allowed == "yes"' }] },
    bindings: { b: { paramRef: { selector: { matchLabels: { limit: 'sa' } }, parameterNotFoundAction: 'Deny' }, validationActions: ['Warn'] } },
    params: { 'limit-a': { limit: 'sa' }, 'limit-b': { limit: 'sa' }, other: { limit: 'cm' } },
    refused: false,
    checks: { 'b/warn': 2 },
  },
  {
    name: 'a binding whose own constraints leave the request out counts nothing',
    policy: { validations: [{ expression: 'false' }] },
    bindings: { b: { matchResources: { namespaceSelector: { matchLabels: { env: 'dev' } } }, validationActions: ['Deny'] } },
    refused: false,
    checks: {},
  },
];

describe('apiserver_validating_admission_policy_check_*: what each request counts', () => {
  let h: PolicyHarness;
  let n = 0;

  before(async () => {
    h = await policyHarness();
  });
  after(() => h.stop());

  for (const c of cases) {
    it(c.name, async (t) => {
      const policy = `counted-${++n}`;
      const maps = h.store('', 'v1', 'configmaps');
      // Removed whatever the outcome: a case's policy left behind would count in the next ones.
      t.after(async () => {
        for (const name of Object.keys(c.bindings)) await h.remove('validatingadmissionpolicybindings', `${policy}-${name}`).catch(() => {});
        await h.remove('validatingadmissionpolicies', policy).catch(() => {});
        for (const name of Object.keys(c.params ?? {})) await maps.delete('shop', name, { user: admin }).catch(() => {});
      });
      for (const [name, labels] of Object.entries(c.params ?? {})) await maps.create('shop', { metadata: { name, labels }, data: { allowed: 'no' } }, { user: admin });
      await h.policy(policy, { matchConstraints: { resourceRules: [saRule] }, ...c.policy });
      for (const [name, spec] of Object.entries(c.bindings)) await h.binding(`${policy}-${name}`, { policyName: policy, ...spec });
      const checksBefore = await samples(h.registry, CHECKS);
      const durationsBefore = await samples(h.registry, DURATION);
      let refused = false;
      try {
        await h.store('', 'v1', 'serviceaccounts').create('shop', { metadata: { name: `sa-${n}`, labels: manyLabels } }, h.recording().options);
      } catch {
        refused = true;
      }
      assert.equal(refused, c.refused);

      const expected = new Map(
        Object.entries(c.checks).map(([key, count]) => {
          const [binding, action] = key.split('/');
          return [`${CHECKS}{policy="${policy}",policy_binding="${policy}-${binding}",enforcement_action="${action}",state="active"}`, count];
        }),
      );
      const changed = new Map<string, number>();
      for (const [series, value] of await samples(h.registry, CHECKS)) {
        const delta = value - (checksBefore.get(series) ?? 0);
        if (delta) changed.set(series, delta);
      }
      assert.deepEqual(changed, expected);
      // Each check counted is timed once, in the same series; the slow expressions' time shows.
      const durations = await samples(h.registry, DURATION);
      for (const [series, count] of expected) {
        const labels = series.slice(CHECKS.length);
        const delta = (name: string) => (durations.get(`${DURATION}_${name}${labels}`) ?? 0) - (durationsBefore.get(`${DURATION}_${name}${labels}`) ?? 0);
        assert.equal(delta('count'), count, `${DURATION}_count${labels}`);
        if (JSON.stringify(c.policy).includes('labels.all')) assert.ok(delta('sum') > 0, `${DURATION}_sum${labels}`);
      }
    });
  }
});

describe('apiserver_validating_admission_policy_definition_total', () => {
  let h: PolicyHarness;
  before(async () => {
    h = await policyHarness();
  });
  after(() => h.stop());

  const definitions = async () => (await samples(h.registry, DEFINITIONS)).get(`${DEFINITIONS}{state="active",enforcement_action="deny"}`);

  it('counts a policy as it joins the replica\'s set: not again for a new generation; again once deleted and created anew', async () => {
    assert.equal(await definitions(), 0);
    const spec = (expression: string): ValidatingAdmissionPolicySpec => ({ matchConstraints: { resourceRules: [saRule] }, validations: [{ expression }] });
    // Counted without bindings: 1.28 counts definitions, bound or not.
    await h.policy('first', spec('true'));
    assert.equal(await definitions(), 1);
    await h.policy('first', spec('1 == 1'));
    assert.equal(await definitions(), 1);
    await h.policy('second', spec('true'));
    assert.equal(await definitions(), 2);
    await h.remove('validatingadmissionpolicies', 'first');
    assert.equal(await definitions(), 2);
    await h.policy('first', spec('true'));
    assert.equal(await definitions(), 3);
  });
});
