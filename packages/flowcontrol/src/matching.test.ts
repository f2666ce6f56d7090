import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { UserInfo } from '@plat/apimachinery';
import { flowDistinguisher, matchesFlowSchema, matchesPolicyRule, type RequestDigest, type RequestInfo } from './matching.js';
import { danglingCondition, flowSchemaSequence } from './flow-schemas.js';
import { mandatoryFlowSchemaCatchAll, mandatoryFlowSchemaExempt } from './mandatory.js';
import type { FlowSchema, PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from './types.js';

const info = (over: Partial<RequestInfo>): RequestInfo => ({ isResourceRequest: true, verb: '', path: '', apiGroup: '', namespace: '', resource: '', subresource: '', name: '', ...over });
const fsWith = (name: string, rules: PolicyRulesWithSubjects[], matchingPrecedence = 1000, pl = 'pl'): FlowSchema => ({
  metadata: { name },
  spec: { priorityLevelConfiguration: { name: pl }, matchingPrecedence, rules },
});

describe('classification (upstream match_test.go)', () => {
  // TestLiterals
  const ui: UserInfo = { name: 'goodu', uid: '1', groups: ['goodg1', 'goodg2'] };
  const reqRN: RequestDigest = { user: ui, requestInfo: info({ path: '/apis/goodapig/v1/namespaces/goodns/goodrscs', verb: 'goodverb', apiGroup: 'goodapig', namespace: 'goodns', resource: 'goodrscs', name: 'eman' }) };
  const reqRU: RequestDigest = { user: ui, requestInfo: info({ path: '/apis/goodapig/v1/goodrscs', verb: 'goodverb', apiGroup: 'goodapig', resource: 'goodrscs', name: 'eman' }) };
  const reqN: RequestDigest = { user: ui, requestInfo: info({ isResourceRequest: false, path: '/openapi/v2', verb: 'goodverb' }) };
  const user = (name: string): Subject => ({ kind: 'User', user: { name } });
  const group = (name: string): Subject => ({ kind: 'Group', group: { name } });
  const rr = (verbs: string, apiGroups: string, resources: string, ns: string | true): ResourcePolicyRule =>
    ns === true ? { verbs: [verbs], apiGroups: [apiGroups], resources: [resources], clusterScope: true } : { verbs: [verbs], apiGroups: [apiGroups], resources: [resources], namespaces: [ns] };
  const check = (expect: boolean, digest: RequestDigest, rules: PolicyRulesWithSubjects[]) => {
    for (const [idx, rule] of rules.entries()) assert.equal(matchesFlowSchema(digest, fsWith(`rule${idx}`, [rule])), expect, `rule ${idx}: ${JSON.stringify(rule)}`);
  };

  test('TestLiterals: a namespaced resource request', () => {
    check(true, reqRN, [
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'goodapig', 'goodrscs', 'goodns')] },
      { subjects: [group('goodg1')], resourceRules: [rr('goodverb', 'goodapig', 'goodrscs', 'goodns')] },
      { subjects: [user('*')], resourceRules: [rr('goodverb', 'goodapig', 'goodrscs', 'goodns')] },
      { subjects: [group('*')], resourceRules: [rr('goodverb', 'goodapig', 'goodrscs', 'goodns')] },
      { subjects: [user('goodu')], resourceRules: [rr('*', 'goodapig', 'goodrscs', 'goodns')] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', '*', 'goodrscs', 'goodns')] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'goodapig', '*', 'goodns')] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'goodapig', 'goodrscs', '*')] },
    ]);
    check(false, reqRN, [
      { subjects: [user('badu')], resourceRules: [rr('goodverb', 'goodapig', 'goodrscs', 'goodns')] },
      { subjects: [group('badg')], resourceRules: [rr('goodverb', 'goodapig', 'goodrscs', 'goodns')] },
      { subjects: [user('goodu')], resourceRules: [rr('badverb', 'goodapig', 'goodrscs', 'goodns')] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'badapig', 'goodrscs', 'goodns')] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'goodapig', 'badrscs', 'goodns')] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'goodapig', 'goodrscs', 'badns')] },
    ]);
  });

  test('TestLiterals: a request with no namespace matches only clusterScope rules', () => {
    check(true, reqRU, [
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'goodapig', 'goodrscs', true)] },
      { subjects: [user('goodu')], resourceRules: [rr('*', 'goodapig', 'goodrscs', true)] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', '*', 'goodrscs', true)] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'goodapig', '*', true)] },
    ]);
    check(false, reqRU, [
      { subjects: [user('goodu')], resourceRules: [rr('badverb', 'goodapig', 'goodrscs', true)] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'badapig', 'goodrscs', true)] },
      { subjects: [user('goodu')], resourceRules: [rr('goodverb', 'goodapig', 'badrscs', true)] },
      { subjects: [user('goodu')], resourceRules: [{ verbs: ['goodverb'], apiGroups: ['goodapig'], resources: ['goodrscs'], clusterScope: false }] },
    ]);
  });

  test('TestLiterals: a non-resource request', () => {
    check(true, reqN, [
      { subjects: [user('goodu')], nonResourceRules: [{ verbs: ['goodverb'], nonResourceURLs: ['/openapi/v2'] }] },
      { subjects: [user('goodu')], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/openapi/v2'] }] },
      { subjects: [user('goodu')], nonResourceRules: [{ verbs: ['goodverb'], nonResourceURLs: ['*'] }] },
    ]);
    check(false, reqN, [
      { subjects: [user('goodu')], nonResourceRules: [{ verbs: ['badverb'], nonResourceURLs: ['/openapi/v2'] }] },
      { subjects: [user('goodu')], nonResourceRules: [{ verbs: ['goodverb'], nonResourceURLs: ['/closedapi/v2'] }] },
    ]);
  });

  test('TestMatching (mandFTRExempt, mandFTRCatchAll): the mandatory schemas', () => {
    const nobody = (groups: string[]): UserInfo => ({ name: 'nobody', groups });
    const nonRes = info({ isResourceRequest: false, path: '/foo/bar', verb: 'frobulate' });
    const res = info({ verb: 'mandate', apiGroup: 'nogroup', namespace: 'nospace', resource: 'nons' });
    for (const ri of [nonRes, res]) {
      assert.equal(matchesFlowSchema({ user: nobody(['system:authenticated', 'nogroup']), requestInfo: ri }, mandatoryFlowSchemaExempt), false);
      assert.equal(matchesFlowSchema({ user: nobody(['system:authenticated', 'system:masters']), requestInfo: ri }, mandatoryFlowSchemaExempt), true);
      assert.equal(matchesFlowSchema({ user: nobody(['system:authenticated', 'nogroup']), requestInfo: ri }, mandatoryFlowSchemaCatchAll), true);
    }
  });

  test('subjects: a service account by name, every one of a namespace with "*", and nothing outside it', () => {
    const rule = (ns: string, name: string): PolicyRulesWithSubjects => ({ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: ns, name } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] });
    const as = (name: string): RequestDigest => ({ user: { name, groups: [] }, requestInfo: info({ isResourceRequest: false, path: '/x', verb: 'get' }) });
    assert.equal(matchesPolicyRule(as('system:serviceaccount:kube-system:job'), rule('kube-system', 'job')), true);
    assert.equal(matchesPolicyRule(as('system:serviceaccount:kube-system:job'), rule('kube-system', 'other')), false);
    assert.equal(matchesPolicyRule(as('system:serviceaccount:kube-system:job'), rule('kube-system', '*')), true);
    assert.equal(matchesPolicyRule(as('system:serviceaccount:kube-systemx:job'), rule('kube-system', '*')), false);
    assert.equal(matchesPolicyRule(as('kube-system:job'), rule('kube-system', '*')), false);
    // A subject without its union member matches nothing.
    assert.equal(matchesPolicyRule(as('alice'), { subjects: [{ kind: 'User' }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }), false);
  });

  test('resources: "resource/subresource" is matched whole; "*" is a wildcard only alone in its list', () => {
    const sub = (resources: string[]): PolicyRulesWithSubjects => ({ subjects: [group('*')], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources, namespaces: ['*'] }] });
    const d: RequestDigest = { user: ui, requestInfo: info({ verb: 'update', namespace: 'ns', resource: 'pods', subresource: 'status' }) };
    assert.equal(matchesPolicyRule(d, sub(['pods/status'])), true);
    assert.equal(matchesPolicyRule(d, sub(['pods'])), false);
    assert.equal(matchesPolicyRule(d, sub(['*'])), true);
    assert.equal(matchesPolicyRule(d, sub(['nodes', '*'])), false);
  });

  test('non-resource URLs: exact, a trailing "*", and a rule without one matching everything under it', () => {
    const urls = (nonResourceURLs: string[]): PolicyRulesWithSubjects => ({ subjects: [group('*')], nonResourceRules: [{ verbs: ['get'], nonResourceURLs }] });
    const at = (path: string): RequestDigest => ({ user: ui, requestInfo: info({ isResourceRequest: false, path, verb: 'get' }) });
    const rows: Array<[string, string, boolean]> = [
      ['/healthz', '/healthz', true],
      ['/healthz', '/healthz/etcd', true],
      ['/healthz', '/healthzz', false],
      ['/healthz/*', '/healthz/etcd', true],
      ['/healthz/*', '/healthz', false],
      ['/apis/*', '/apis/apps/v1', true],
      ['/apis*', '/apis/apps', true],
      ['/apis*', '/apisx', false],
    ];
    for (const [rule, path, expect] of rows) assert.equal(matchesPolicyRule(at(path), urls([rule])), expect, `${rule} vs ${path}`);
  });

  test('the distinguisher: by user, by namespace (empty when cluster-scoped), or none', () => {
    const d: RequestDigest = { user: { name: 'alice', groups: [] }, requestInfo: info({ namespace: 'team-a' }) };
    assert.equal(flowDistinguisher(d, { type: 'ByUser' }), 'alice');
    assert.equal(flowDistinguisher(d, { type: 'ByNamespace' }), 'team-a');
    assert.equal(flowDistinguisher({ ...d, requestInfo: info({}) }, { type: 'ByNamespace' }), '');
    assert.equal(flowDistinguisher(d, undefined), '');
  });
});

describe('the FlowSchema sequence', () => {
  test('by matchingPrecedence, then name; dangling ones skipped; exempt and catch-all supplied when missing', () => {
    const fss = [fsWith('b', [], 500), fsWith('a', [], 500), fsWith('z', [], 100), fsWith('dangling', [], 50, 'gone')];
    const seq = flowSchemaSequence(fss, (pl) => pl !== 'gone');
    assert.deepEqual(seq.map((fs) => fs.metadata.name), ['exempt', 'z', 'a', 'b', 'catch-all']);
    assert.equal(seq[0], mandatoryFlowSchemaExempt);
    // Present ones are used as they are, in their place.
    const own = fsWith('catch-all', [], 10000, 'catch-all');
    assert.equal(flowSchemaSequence([own], () => true).at(-1), own);
  });

  test('the Dangling condition, upstream\'s messages', () => {
    const fs = fsWith('x', [], 1000, 'missing-pl');
    assert.deepEqual(danglingCondition(fs, false), {
      type: 'Dangling',
      status: 'True',
      reason: 'NotFound',
      message: 'This FlowSchema references the PriorityLevelConfiguration object named "missing-pl" but there is no such object',
    });
    assert.deepEqual(danglingCondition(fs, true), {
      type: 'Dangling',
      status: 'False',
      reason: 'Found',
      message: 'This FlowSchema references the PriorityLevelConfiguration object named "missing-pl" and it exists',
    });
  });
});
