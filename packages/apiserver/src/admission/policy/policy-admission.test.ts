// The plugin over a catalog: each action, the reasons' codes, messages, params (found, not found
// Allow/Deny, by selector), failurePolicy on errors, match conditions, variables, audit
// annotations, the cost limits, the authorizer answered by RBAC, equivalent resources, dry runs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '@plat/apimachinery';
import type { NamedRuleWithOperations, ValidatingAdmissionPolicySpec } from '@plat/api';
import type { KubeObject } from '@plat/registry';
import { admin, alice, policyHarness, type PolicyHarness } from './policy-test-support.js';

const saRule: NamedRuleWithOperations = { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['serviceaccounts'] };
const spec = (more: Partial<ValidatingAdmissionPolicySpec>): ValidatingAdmissionPolicySpec => ({ matchConstraints: { resourceRules: [saRule] }, ...more });

const serviceAccount = (name: string, labels?: Record<string, string>): KubeObject => ({ metadata: { name, ...(labels && { labels }) } });

/** The StatusError a write fails with, or undefined when it succeeds. */
async function refusal(write: Promise<unknown>): Promise<StatusError | undefined> {
  try {
    await write;
    return undefined;
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
}

describe('ValidatingAdmissionPolicy admission', () => {
  let h: PolicyHarness;
  const accounts = () => h.store('', 'v1', 'serviceaccounts');
  let n = 0;
  const fresh = () => `sa-${++n}`;

  before(async () => {
    h = await policyHarness();
  });
  after(() => h.stop());

  it('a request no policy names costs a lookup and no promise', async () => {
    await h.policy('only-sa', spec({ validations: [{ expression: 'false' }] }));
    await h.binding('only-sa', { policyName: 'only-sa', validationActions: ['Deny'] });
    assert.equal(h.source.candidates('configmaps', 'CREATE').length, 0);
    assert.equal(h.source.candidates('serviceaccounts', 'DELETE').length, 0);
    const check = h.catalog.find('', 'v1', 'configmaps')!;
    // The plugin's check returns nothing (no promise) for a request no policy names.
    const { ValidatingAdmissionPolicyPlugin } = await import('./policy-admission.js');
    const plugin = new ValidatingAdmissionPolicyPlugin({ catalog: h.catalog, domain: 'plat.io', source: h.source, authorizer: { authorize: () => ({ decision: 'NoOpinion', reason: '' }) } });
    const attributes = { uid: 'u', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, operation: 'CREATE' as const, resource: check.resolved, namespace: 'shop', name: 'c', object: { metadata: { name: 'c' } }, dryRun: false };
    assert.equal(plugin.admission(attributes), undefined);
    await h.remove('validatingadmissionpolicybindings', 'only-sa');
    await h.remove('validatingadmissionpolicies', 'only-sa');
  });

  it('Deny refuses with upstream\'s message, a 422 Invalid by default, the message in the causes', async () => {
    await h.policy('max-len', spec({ validations: [{ expression: 'object.metadata.name.size() < 8' }] }));
    await h.binding('max-len-deny', { policyName: 'max-len', validationActions: ['Deny'] });
    const error = await refusal(accounts().create('shop', serviceAccount('much-too-long'), h.recording().options));
    assert.ok(error);
    const message = "ValidatingAdmissionPolicy 'max-len' with binding 'max-len-deny' denied request: failed expression: object.metadata.name.size() < 8";
    assert.equal(error.status.code, 422);
    assert.equal(error.status.reason, 'Invalid');
    assert.equal(error.status.message, `serviceaccounts "much-too-long" is forbidden: ${message}`);
    assert.deepEqual(error.status.details, { name: 'much-too-long', kind: 'serviceaccounts', causes: [{ message }] });
    assert.equal(await refusal(accounts().create('shop', serviceAccount('short'), h.recording().options)), undefined);
    // A dry run is checked as the real request is.
    assert.equal((await refusal(accounts().create('shop', serviceAccount('much-too-long'), h.recording(alice, { dryRun: true }).options)))?.code, 422);
    await h.remove('validatingadmissionpolicybindings', 'max-len-deny');
  });

  for (const [reason, code] of [['Forbidden', 403], ['Unauthorized', 401], ['RequestEntityTooLarge', 413], ['Invalid', 422]] as const) {
    it(`the reason ${reason} answers ${code}`, async () => {
      await h.policy('reasons', spec({ validations: [{ expression: 'false', reason, message: 'no' }] }));
      await h.binding('reasons', { policyName: 'reasons', validationActions: ['Deny'] });
      const error = await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording().options));
      assert.equal(error?.code, code);
      assert.equal(error?.status.reason, reason);
      assert.match(error?.message ?? '', /denied request: no$/);
      await h.remove('validatingadmissionpolicybindings', 'reasons');
    });
  }

  it('Warn warns and admits; Audit annotates and admits', async () => {
    await h.policy('labelled', spec({ validations: [{ expression: 'true' }, { expression: 'has(object.metadata.labels)', messageExpression: '"account " + object.metadata.name + " has no labels"' }] }));
    await h.binding('labelled-warn', { policyName: 'labelled', validationActions: ['Warn'] });
    await h.binding('labelled-audit', { policyName: 'labelled', validationActions: ['Audit'] });
    const { options, recorded } = h.recording();
    const name = fresh();
    assert.equal(await refusal(accounts().create('shop', serviceAccount(name), options)), undefined);
    assert.deepEqual(recorded.warnings, [`Validation failed for ValidatingAdmissionPolicy 'labelled' with binding 'labelled-warn': account ${name} has no labels`]);
    assert.deepEqual(JSON.parse(recorded.annotations['validation.policy.admission.plat.io/validation_failure']!), [
      { message: `account ${name} has no labels`, policy: 'labelled', binding: 'labelled-audit', expressionIndex: 1, validationActions: ['Audit'] },
    ]);
    const labelled = h.recording();
    await accounts().create('shop', serviceAccount(fresh(), { a: 'b' }), labelled.options);
    assert.deepEqual(labelled.recorded, { warnings: [], annotations: {} });
    await h.remove('validatingadmissionpolicybindings', 'labelled-warn');
    await h.remove('validatingadmissionpolicybindings', 'labelled-audit');
  });

  it('messages: a messageExpression that gives no usable string falls back to the message, then the expression', async () => {
    await h.policy('messages', spec({
      validations: [
        { expression: 'false', messageExpression: '"  "', message: ' plain message ' },
        { expression: 'false', messageExpression: '"two\\nlines"' },
        { expression: 'false', messageExpression: 'string(object.nope)', message: 'when the message errs' },
      ],
    }));
    await h.binding('messages', { policyName: 'messages', validationActions: ['Warn'] });
    const { options, recorded } = h.recording();
    await accounts().create('shop', serviceAccount(fresh()), options);
    assert.deepEqual(recorded.warnings.map((w) => w.replace(/.*: /, '')), ['plain message', 'false', 'when the message errs']);
    assert.match(recorded.warnings[1]!, /failed expression: false$/);
    await h.remove('validatingadmissionpolicybindings', 'messages');
  });

  it('failurePolicy: an expression that errs denies with Fail, is ignored with Ignore', async () => {
    await h.policy('errs', spec({ validations: [{ expression: 'object.spec.replicas > 1' }] }));
    await h.binding('errs', { policyName: 'errs', validationActions: ['Deny'] });
    const error = await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording().options));
    assert.match(error?.message ?? '', /ValidatingAdmissionPolicy 'errs' with binding 'errs' denied request: expression 'object.spec.replicas > 1' resulted in error: no such key: spec$/);
    assert.equal(error?.code, 422);
    await h.policy('errs', spec({ failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.replicas > 1' }] }));
    assert.equal(await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording().options)), undefined);
    await h.remove('validatingadmissionpolicybindings', 'errs');
  });

  it('params: by name in the request\'s namespace, not found with Allow or Deny, a paramKind nothing serves', async () => {
    const maps = h.store('', 'v1', 'configmaps');
    await maps.create('shop', { metadata: { name: 'limits' }, data: { maxLength: '6' } }, { user: admin });
    await h.policy('param-len', spec({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'object.metadata.name.size() <= int(params.data.maxLength)', messageExpression: '"longer than " + params.data.maxLength + " (" + params.kind + ")"' }] }));
    await h.binding('param-len', { policyName: 'param-len', paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' }, validationActions: ['Deny'] });
    assert.match((await refusal(accounts().create('shop', serviceAccount('sevenxx'), h.recording().options)))?.message ?? '', /denied request: longer than 6 \(ConfigMap\)$/);
    assert.equal(await refusal(accounts().create('shop', serviceAccount('six123'), h.recording().options)), undefined);
    // No ConfigMap "limits" in lab: Deny refuses, Allow admits.
    assert.match(
      (await refusal(accounts().create('lab', serviceAccount('sevenxx'), h.recording().options)))?.message ?? '',
      /ValidatingAdmissionPolicy 'param-len' with binding 'param-len' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction$/,
    );
    await h.binding('param-len', { policyName: 'param-len', paramRef: { name: 'limits', parameterNotFoundAction: 'Allow' }, validationActions: ['Deny'] });
    assert.equal(await refusal(accounts().create('lab', serviceAccount('sevenxx'), h.recording().options)), undefined);
    // paramRef.namespace names where the parameter is, whatever the request's namespace.
    await h.binding('param-len', { policyName: 'param-len', paramRef: { name: 'limits', namespace: 'shop', parameterNotFoundAction: 'Deny' }, validationActions: ['Deny'] });
    assert.equal((await refusal(accounts().create('lab', serviceAccount('sevenxx'), h.recording().options)))?.code, 422);
    await h.policy('param-len', spec({ paramKind: { apiVersion: 'example.com/v1', kind: 'Limit' }, validations: [{ expression: 'true' }] }));
    assert.match(
      (await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording().options)))?.message ?? '',
      /ValidatingAdmissionPolicy 'param-len' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com\/v1, Kind=Limit'$/,
    );
    await h.remove('validatingadmissionpolicybindings', 'param-len');
    await h.remove('validatingadmissionpolicies', 'param-len');
  });

  it('params: a selector evaluates the policy with each parameter; any failure denies', async () => {
    const maps = h.store('', 'v1', 'configmaps');
    await maps.create('shop', { metadata: { name: 'deny-x', labels: { rule: 'prefix' } }, data: { prefix: 'x-' } }, { user: admin });
    await maps.create('shop', { metadata: { name: 'deny-y', labels: { rule: 'prefix' } }, data: { prefix: 'y-' } }, { user: admin });
    await h.policy('prefixes', spec({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: '!object.metadata.name.startsWith(params.data.prefix)', messageExpression: '"prefix " + params.data.prefix' }] }));
    await h.binding('prefixes', { policyName: 'prefixes', paramRef: { selector: { matchLabels: { rule: 'prefix' } }, parameterNotFoundAction: 'Deny' }, validationActions: ['Deny'] });
    assert.match((await refusal(accounts().create('shop', serviceAccount('x-a'), h.recording().options)))?.message ?? '', /prefix x-$/);
    assert.match((await refusal(accounts().create('shop', serviceAccount('y-a'), h.recording().options)))?.message ?? '', /prefix y-$/);
    assert.equal(await refusal(accounts().create('shop', serviceAccount('z-a'), h.recording().options)), undefined);
    await h.remove('validatingadmissionpolicybindings', 'prefixes');
    await h.remove('validatingadmissionpolicies', 'prefixes');
  });

  it('bindings narrow by their own match resources; namespace selectors read the namespace\'s labels', async () => {
    await h.policy('narrow', spec({ validations: [{ expression: 'false' }], matchConstraints: { resourceRules: [saRule], namespaceSelector: { matchLabels: { env: 'prod' } } } }));
    await h.binding('narrow', { policyName: 'narrow', validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: { checked: 'yes' } } } });
    assert.equal((await refusal(accounts().create('shop', serviceAccount(fresh(), { checked: 'yes' }), h.recording().options)))?.code, 422);
    assert.equal(await refusal(accounts().create('shop', serviceAccount(fresh(), { checked: 'no' }), h.recording().options)), undefined);
    assert.equal(await refusal(accounts().create('lab', serviceAccount(fresh(), { checked: 'yes' }), h.recording().options)), undefined, 'lab is not prod');
    await h.remove('validatingadmissionpolicybindings', 'narrow');
  });

  it('match conditions: a false one skips the policy; one that errs denies with Fail', async () => {
    await h.policy('conditions', spec({
      matchConditions: [{ name: 'not-admin', expression: 'request.userInfo.username != "admin"' }, { name: 'labelled', expression: 'has(object.metadata.labels)' }],
      validations: [{ expression: 'false', message: 'refused' }],
    }));
    await h.binding('conditions', { policyName: 'conditions', validationActions: ['Deny'] });
    assert.equal(await refusal(accounts().create('shop', serviceAccount(fresh(), { a: 'b' }), h.recording(admin).options)), undefined);
    assert.equal(await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording().options)), undefined);
    assert.match((await refusal(accounts().create('shop', serviceAccount(fresh(), { a: 'b' }), h.recording().options)))?.message ?? '', /denied request: refused$/);
    await h.policy('conditions', spec({ matchConditions: [{ name: 'errs', expression: 'object.nope == 1' }], validations: [{ expression: 'false' }] }));
    assert.match((await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording().options)))?.message ?? '', /denied request: expression 'object.nope == 1' resulted in error: no such key: nope$/);
    await h.remove('validatingadmissionpolicybindings', 'conditions');
  });

  it('variables are evaluated when read, once, and read by later variables', async () => {
    await h.policy('variables', spec({
      variables: [
        { name: 'team', expression: 'has(object.metadata.labels) && "team" in object.metadata.labels ? object.metadata.labels.team : ""' },
        { name: 'prefix', expression: 'variables.team + "-"' },
      ],
      validations: [{ expression: 'variables.team == "" || object.metadata.name.startsWith(variables.prefix)', messageExpression: '"must start with " + variables.prefix' }],
    }));
    await h.binding('variables', { policyName: 'variables', validationActions: ['Deny'] });
    assert.match((await refusal(accounts().create('shop', serviceAccount('svc', { team: 'web' }), h.recording().options)))?.message ?? '', /must start with web-$/);
    assert.equal(await refusal(accounts().create('shop', serviceAccount('web-svc', { team: 'web' }), h.recording().options)), undefined);
    await h.remove('validatingadmissionpolicybindings', 'variables');
  });

  it('audit annotations: <policy>/<key>, null left out, distinct values of several params joined', async () => {
    const maps = h.store('', 'v1', 'configmaps');
    await maps.create('shop', { metadata: { name: 'tag-a', labels: { tag: 'yes' } }, data: { tag: 'alpha' } }, { user: admin });
    await maps.create('shop', { metadata: { name: 'tag-b', labels: { tag: 'yes' } }, data: { tag: 'beta' } }, { user: admin });
    await h.policy('audited', spec({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'true' }],
      auditAnnotations: [
        { key: 'tag', valueExpression: 'string(params.data.tag)' },
        { key: 'who', valueExpression: 'request.userInfo.username' },
        { key: 'none', valueExpression: 'null' },
      ],
    }));
    await h.binding('audited', { policyName: 'audited', paramRef: { selector: { matchLabels: { tag: 'yes' } }, parameterNotFoundAction: 'Allow' }, validationActions: ['Deny'] });
    const { options, recorded } = h.recording();
    await accounts().create('shop', serviceAccount(fresh()), options);
    assert.deepEqual(recorded.annotations, { 'audited/tag': 'alpha, beta', 'audited/who': 'alice' });
    await h.remove('validatingadmissionpolicybindings', 'audited');
    await h.remove('validatingadmissionpolicies', 'audited');
  });

  it('the request and namespaceObject variables', async () => {
    await h.policy('request', spec({
      validations: [
        {
          expression: [
            'request.operation == "CREATE"',
            'request.kind.kind == "ServiceAccount" && request.resource.resource == "serviceaccounts" && request.resource.version == "v1"',
            'request.namespace == "shop" && request.userInfo.groups.exists(g, g == "devs") && request.userInfo.extra.team == ["shop"]',
            'request.dryRun && request.options.kind == "CreateOptions"',
            'namespaceObject.metadata.name == "shop" && namespaceObject.metadata.labels.env == "prod"',
            'namespaceObject.metadata.creationTimestamp < timestamp("2999-01-01T00:00:00Z")',
            'oldObject == null',
          ].join(' && '),
        },
      ],
    }));
    await h.binding('request', { policyName: 'request', validationActions: ['Deny'] });
    const { options } = h.recording(alice, { dryRun: true, operationOptions: { kind: 'CreateOptions', apiVersion: 'meta.plat.io/v1', dryRun: ['All'] } });
    assert.equal(await refusal(accounts().create('shop', serviceAccount(fresh()), options)), undefined);
    await h.remove('validatingadmissionpolicybindings', 'request');
  });

  it('the authorizer: only users who may update a named ConfigMap may label accounts (RBAC answers)', async () => {
    const rbac = 'rbac.authorization.plat.io';
    await h.store(rbac, 'v1', 'roles').create(
      'shop',
      {
        metadata: { name: 'label-authority' },
        rules: [
          { verbs: ['update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['label-authority'] },
          { verbs: ['create'], apiGroups: [''], resources: ['serviceaccounts'] },
        ],
      } as KubeObject,
      { user: admin },
    );
    await h.store(rbac, 'v1', 'rolebindings').create('shop', { metadata: { name: 'alice-labels' }, roleRef: { apiGroup: rbac, kind: 'Role', name: 'label-authority' }, subjects: [{ kind: 'User', apiGroup: rbac, name: 'alice' }] } as KubeObject, { user: admin });
    await h.policy('label-authority', spec({
      validations: [
        {
          expression: '!has(object.metadata.labels) || authorizer.group("").resource("configmaps").namespace(object.metadata.namespace).name("label-authority").check("update").allowed()',
          messageExpression: '"may not label " + object.metadata.name',
          reason: 'Forbidden',
        },
        // The request's own resource: serviceaccounts in shop, for the requesting user.
        { expression: 'authorizer.requestResource.check("create").allowed()', message: 'may not create' },
      ],
    }));
    await h.binding('label-authority', { policyName: 'label-authority', validationActions: ['Deny'] });
    // RBAC's watch brings the binding in: until then alice is refused too.
    for (let i = 0; i < 100; i++) {
      if (!(await refusal(accounts().create('shop', serviceAccount(fresh(), { x: 'y' }), h.recording(alice, { dryRun: true }).options)))) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(await refusal(accounts().create('shop', serviceAccount(fresh(), { x: 'y' }), h.recording().options)), undefined, 'alice may');
    const bob = { name: 'bob', groups: ['system:authenticated'] };
    const labelled = fresh();
    const error = await refusal(accounts().create('shop', serviceAccount(labelled, { x: 'y' }), h.recording(bob).options));
    assert.equal(error?.code, 403);
    assert.match(error?.message ?? '', new RegExp(`denied request: may not label ${labelled}$`));
    const plain = await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording(bob).options));
    assert.equal(plain?.code, 422);
    assert.match(plain?.message ?? '', /denied request: may not create$/);
    // system:masters is allowed everything, as the server's authorizer allows it.
    assert.equal(await refusal(accounts().create('shop', serviceAccount(fresh(), { x: 'y' }), h.recording(admin).options)), undefined);
    await h.remove('validatingadmissionpolicybindings', 'label-authority');
  });

  it('cost: past the per-expression limit an expression errs; past the binding\'s budget every validation fails', async () => {
    const range = `[${Array.from({ length: 900 }, (_, i) => i).join(',')}]`;
    await h.policy('costly', spec({ validations: [{ expression: `${range}.all(x, ${range}.all(y, x >= 0))` }] }));
    await h.binding('costly', { policyName: 'costly', validationActions: ['Deny'] });
    assert.match((await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording().options)))?.message ?? '', /resulted in error: operation cancelled: actual cost limit exceeded$/);
    // Each 730,921: fourteen of them pass 10,000,000, and each alone passes.
    const inner = `[${Array.from({ length: 320 }, (_, i) => i).join(',')}]`;
    const heavy = `${inner}.all(x, ${inner}.all(y, x + y >= 0))`;
    await h.policy('costly', spec({ validations: Array.from({ length: 13 }, () => ({ expression: heavy })) }));
    assert.equal(await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording().options)), undefined, 'thirteen fit');
    await h.policy('costly', spec({ validations: Array.from({ length: 14 }, () => ({ expression: heavy })) }));
    assert.match(
      (await refusal(accounts().create('shop', serviceAccount(fresh()), h.recording().options)))?.message ?? '',
      /denied request: validation failed due to running out of cost budget, no further validation rules will be run$/,
    );
    await h.remove('validatingadmissionpolicybindings', 'costly');
  });

  it('DELETE: oldObject is the object, and a refusal names no object ("Unknown")', async () => {
    const name = fresh();
    await accounts().create('shop', serviceAccount(name, { keep: 'true' }), { user: admin });
    await h.policy('keep', spec({ matchConstraints: { resourceRules: [{ ...saRule, operations: ['DELETE'] }] }, validations: [{ expression: 'object == null && !("keep" in oldObject.metadata.labels)', message: 'kept' }] }));
    await h.binding('keep', { policyName: 'keep', validationActions: ['Deny'] });
    const error = await refusal(accounts().delete('shop', name, h.recording().options));
    assert.equal(error?.message, `serviceaccounts "Unknown" is forbidden: ValidatingAdmissionPolicy 'keep' with binding 'keep' denied request: kept`);
    await h.remove('validatingadmissionpolicybindings', 'keep');
  });

  it('matchPolicy Equivalent: an Event written through events.plat.io is checked as a core v1 Event', async () => {
    const rule: NamedRuleWithOperations = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['events'] };
    await h.policy('events', { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'object.message != "forbidden" && request.requestResource.group == "events.plat.io" && request.resource.group == ""' }] });
    await h.binding('events', { policyName: 'events', validationActions: ['Deny'] });
    const event = (note: string): KubeObject =>
      ({
        metadata: { name: fresh() },
        eventTime: '2024-05-01T10:00:00.000000Z',
        reportingController: 'example.com/c',
        reportingInstance: 'i',
        action: 'Do',
        reason: 'Done',
        regarding: { kind: 'Pod', name: 'p', namespace: 'shop' },
        note,
        type: 'Normal',
      }) as KubeObject;
    const events = h.store('events.plat.io', 'v1', 'events');
    assert.equal((await refusal(events.create('shop', event('forbidden'), h.recording().options)))?.code, 422);
    assert.equal(await refusal(events.create('shop', event('fine'), h.recording().options)), undefined);
    await h.policy('events', { matchConstraints: { resourceRules: [rule], matchPolicy: 'Exact' }, validations: [{ expression: 'false' }] });
    assert.equal(await refusal(events.create('shop', event('forbidden'), h.recording().options)), undefined);
    await h.remove('validatingadmissionpolicybindings', 'events');
  });

  it('a policy with a rule for a resource and another for * is evaluated once', async () => {
    await h.policy('twice', { matchConstraints: { resourceRules: [saRule, { ...saRule, resources: ['*'] }] }, validations: [{ expression: 'false', message: 'once' }] });
    await h.binding('twice', { policyName: 'twice', validationActions: ['Warn'] });
    const { options, recorded } = h.recording();
    await accounts().create('shop', serviceAccount(fresh()), options);
    assert.deepEqual(recorded.warnings, ["Validation failed for ValidatingAdmissionPolicy 'twice' with binding 'twice': once"]);
    await h.remove('validatingadmissionpolicybindings', 'twice');
  });

  it('policies and bindings are not subject to policies', async () => {
    await h.policy('everything', { matchConstraints: { resourceRules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }, validations: [{ expression: 'false' }] });
    await h.binding('everything', { policyName: 'everything', validationActions: ['Deny'] });
    assert.equal((await refusal(h.store('', 'v1', 'configmaps').create('shop', { metadata: { name: fresh() } }, h.recording().options)))?.code, 422);
    await h.policy('another', spec({ validations: [{ expression: 'true' }] }));
    await h.remove('validatingadmissionpolicybindings', 'everything');
  });
});

describe('ValidatingAdmissionPolicy admission: the authorizer library and compilation', () => {
  let h: PolicyHarness;
  before(async () => {
    h = await policyHarness();
  });
  after(() => h.stop());

  it('path().check(), serviceAccount() and Decision.reason() are answered by RBAC', async () => {
    const rbac = 'rbac.authorization.plat.io';
    const ref = (kind: string, name: string) => ({ apiGroup: rbac, kind, name });
    await h.store(rbac, 'v1', 'clusterroles').create('', { metadata: { name: 'healthz' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] } as KubeObject, { user: admin });
    await h.store(rbac, 'v1', 'clusterrolebindings').create('', { metadata: { name: 'alice-healthz' }, roleRef: ref('ClusterRole', 'healthz'), subjects: [{ kind: 'User', apiGroup: rbac, name: 'alice' }] } as KubeObject, { user: admin });
    await h.store(rbac, 'v1', 'roles').create('shop', { metadata: { name: 'read-config' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] } as KubeObject, { user: admin });
    await h.store(rbac, 'v1', 'rolebindings').create('shop', { metadata: { name: 'builder-reads' }, roleRef: ref('Role', 'read-config'), subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'shop' }] } as KubeObject, { user: admin });
    await h.policy('library', spec({
      validations: [
        {
          expression: 'authorizer.path("/healthz").check("get").allowed() && authorizer.path("/healthz").check("get").reason() == "RBAC: allowed by ClusterRoleBinding \\"alice-healthz\\" of ClusterRole \\"healthz\\" to User \\"alice\\""',
          message: 'no /healthz',
        },
        { expression: 'authorizer.serviceAccount("shop", "builder").group("").resource("configmaps").namespace("shop").check("get").allowed()', message: 'builder reads no configmaps' },
        { expression: '!authorizer.serviceAccount("shop", "builder").group("").resource("secrets").namespace("shop").check("get").allowed()', message: 'builder reads secrets' },
      ],
    }));
    await h.binding('library', { policyName: 'library', validationActions: ['Warn'] });
    // RBAC's watches bring the roles in.
    let warnings: string[] = [];
    for (let i = 0; i < 200; i++) {
      const { options, recorded } = h.recording();
      await h.store('', 'v1', 'serviceaccounts').create('shop', { metadata: { name: `lib-${i}` } }, options);
      warnings = recorded.warnings;
      if (!warnings.length) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(warnings, [], 'alice may get /healthz; builder may read configmaps, not secrets');
    const bob = { name: 'bob', groups: ['system:authenticated'] };
    const { options, recorded } = h.recording(bob);
    await h.store('', 'v1', 'serviceaccounts').create('shop', { metadata: { name: 'lib-bob' } }, options);
    assert.deepEqual(recorded.warnings, ["Validation failed for ValidatingAdmissionPolicy 'library' with binding 'library': no /healthz"]);
    await h.remove('validatingadmissionpolicybindings', 'library');
  });

  it('a policy is compiled once per generation: a status write does not compile it again', async () => {
    await h.policy('once', spec({ validations: [{ expression: 'true' }] }));
    const compiled = h.source.policy('once');
    const store = h.store('admissionregistration.plat.io', 'v1beta1', 'validatingadmissionpolicies');
    const seen: string[] = [];
    h.source.onPolicy.push((policy) => void seen.push(policy.metadata.resourceVersion!));
    const current = await store.get('', 'once');
    const written = await store.update('', 'once', { ...current, status: { observedGeneration: 1 } } as KubeObject, { subresource: 'status', user: admin });
    for (let i = 0; i < 200 && !seen.includes(written.object.metadata.resourceVersion!); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(seen.includes(written.object.metadata.resourceVersion!), 'the status write was seen');
    assert.equal(h.source.policy('once'), compiled);
    await h.policy('once', spec({ validations: [{ expression: 'false' }] }));
    assert.notEqual(h.source.policy('once'), compiled);
    assert.equal(h.source.policy('once')?.generation, 2);
  });
});
