// The controller-manager's pure parts: the command line, rule aggregation, namespace conditions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregatedRules, sameRules, type ClusterRole } from './controllers/cluster-role-aggregation.js';
import { ConditionUpdater } from './controllers/namespace.js';
import { FlagError } from '@plat/apimachinery';
import { enabledControllers, parseCommandLine, type ControllerManagerConfig } from './options.js';

test('command line: defaults are upstream\'s', () => {
  const parsed = parseCommandLine(['--kubeconfig=/k']);
  assert.equal(parsed.help, false);
  if (parsed.help) return;
  assert.deepEqual(parsed.config.leaderElection, {
    enabled: true,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    namespace: 'plat-system',
    name: 'plat-controller-manager',
  });
  assert.equal(parsed.config.apiDomain, 'plat.io');
  assert.equal(parsed.config.concurrentGCSyncs, 20);
  assert.equal(parsed.config.controllers.size, 6);
  // The node lifecycle controller's periods, as kube-controller-manager's.
  assert.deepEqual(parsed.config.nodeLifecycle, { monitorPeriodMs: 5_000, gracePeriodMs: 40_000, startupGracePeriodMs: 60_000 });
  assert.equal(parsed.config.useServiceAccountCredentials, false);
  // kube-controller-manager's secure port, on loopback here, with a certificate made in memory.
  assert.deepEqual(parsed.config.serving, { port: 10257, bindAddress: '127.0.0.1', certDir: '', tlsCertFile: '', tlsPrivateKeyFile: '', tls: { minVersion: 'TLSv1.2' } });
});

const servingCases: { name: string; argv: string[]; want: Partial<ControllerManagerConfig['serving']> }[] = [
  { name: '--secure-port=0 serves nothing', argv: ['--secure-port=0'], want: { port: 0 } },
  { name: 'another port and every interface', argv: ['--secure-port', '20257', '--bind-address=0.0.0.0'], want: { port: 20257, bindAddress: '0.0.0.0' } },
  { name: 'an IPv6 address', argv: ['--bind-address=::1'], want: { bindAddress: '::1' } },
  { name: 'a certificate directory', argv: ['--cert-dir=/var/run/plat'], want: { certDir: '/var/run/plat' } },
  { name: 'TLS 1.3 at least', argv: ['--tls-min-version=VersionTLS13'], want: { tls: { minVersion: 'TLSv1.3' } } },
  {
    name: 'TLS 1.2 suites',
    argv: ['--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
    want: { tls: { minVersion: 'TLSv1.2', tls12Suites: ['ECDHE-ECDSA-AES256-GCM-SHA384'] } },
  },
  { name: 'given certificate files', argv: ['--tls-cert-file=/c.crt', '--tls-private-key-file=/c.key'], want: { tlsCertFile: '/c.crt', tlsPrivateKeyFile: '/c.key' } },
];
for (const c of servingCases) {
  test(`command line: ${c.name}`, () => {
    const parsed = parseCommandLine(['--kubeconfig=/k', ...c.argv]);
    assert.ok(!parsed.help);
    if (parsed.help) return;
    assert.deepEqual(parsed.config.serving, { port: 10257, bindAddress: '127.0.0.1', certDir: '', tlsCertFile: '', tlsPrivateKeyFile: '', tls: { minVersion: 'TLSv1.2' }, ...c.want });
  });
}

test('command line: --use-service-account-credentials', () => {
  const parsed = parseCommandLine(['--kubeconfig=/k', '--use-service-account-credentials']);
  assert.ok(!parsed.help);
  if (parsed.help) return;
  assert.equal(parsed.config.useServiceAccountCredentials, true);
});

test('command line: k8s.io names, durations, --leader-elect=false', () => {
  const parsed = parseCommandLine(['--kubeconfig', '/k', '--api-domain=k8s.io', '--leader-elect=false', '--leader-elect-lease-duration=30s']);
  assert.ok(!parsed.help);
  if (parsed.help) return;
  assert.equal(parsed.config.leaderElection.enabled, false);
  assert.equal(parsed.config.leaderElection.namespace, 'kube-system');
  assert.equal(parsed.config.leaderElection.name, 'kube-controller-manager');
  assert.equal(parsed.config.leaderElection.leaseDurationMs, 30_000);
});

const badCommandLines: { name: string; argv: string[]; message: RegExp }[] = [
  { name: 'no kubeconfig', argv: [], message: /--kubeconfig is required/ },
  { name: 'an unknown flag', argv: ['--kubeconfig=/k', '--master=x'], message: /unknown flag: --master/ },
  { name: 'a bad duration', argv: ['--kubeconfig=/k', '--leader-elect-retry-period=soon'], message: /--leader-elect-retry-period/ },
  { name: 'a renew deadline too close to the retry period', argv: ['--kubeconfig=/k', '--leader-elect-retry-period=9s'], message: /renew-deadline must be greater/ },
  { name: 'a lease shorter than the renew deadline', argv: ['--kubeconfig=/k', '--leader-elect-lease-duration=5s'], message: /lease-duration must be greater/ },
  { name: 'an unknown controller', argv: ['--kubeconfig=/k', '--controllers=*,-cronjob-controller'], message: /unknown controller "cronjob-controller"/ },
  { name: 'a domain that is not one', argv: ['--kubeconfig=/k', '--api-domain=Plat'], message: /--api-domain/ },
  { name: 'a port out of range', argv: ['--kubeconfig=/k', '--secure-port=65536'], message: /--secure-port/ },
  { name: 'a bind address that is a name', argv: ['--kubeconfig=/k', '--bind-address=localhost'], message: /--bind-address: must be an IP address/ },
  { name: 'a certificate without its key', argv: ['--kubeconfig=/k', '--tls-cert-file=/c.crt'], message: /must be given together/ },
  { name: 'a zero node grace period', argv: ['--kubeconfig=/k', '--node-monitor-grace-period=0s'], message: /--node-monitor-grace-period: must be positive/ },
];
for (const c of badCommandLines) {
  test(`command line: ${c.name} is refused`, () => {
    assert.throws(() => parseCommandLine(c.argv), (error: Error) => error instanceof FlagError && c.message.test(error.message));
  });
}

const controllerCases: { list: string[]; want: string[] }[] = [
  { list: ['*'], want: ['namespace-controller', 'serviceaccount-controller', 'clusterrole-aggregation-controller', 'garbage-collector-controller', 'crd-cleanup-controller', 'node-lifecycle-controller'] },
  { list: ['*', '-garbage-collector-controller'], want: ['namespace-controller', 'serviceaccount-controller', 'clusterrole-aggregation-controller', 'crd-cleanup-controller', 'node-lifecycle-controller'] },
  { list: ['namespace-controller'], want: ['namespace-controller'] },
  { list: [], want: [] },
];
for (const c of controllerCases) {
  test(`--controllers=${c.list.join(',')}`, () => assert.deepEqual([...enabledControllers(c.list)], c.want));
}

const role = (name: string, labels: Record<string, string>, resources: string[]): ClusterRole => ({
  metadata: { name, labels },
  rules: resources.map((r) => ({ verbs: ['get'], apiGroups: [''], resources: [r] })),
});

test('aggregation: selectors in order, roles by name, each rule once, the role itself left out', () => {
  const target: ClusterRole = {
    metadata: { name: 'target', labels: { a: 'x' } },
    rules: [{ verbs: ['*'] }],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { b: 'y' } }, { matchExpressions: [{ key: 'a', operator: 'Exists' }] }] },
  };
  const roles = [target, role('z', { a: '1' }, ['pods']), role('m', { b: 'y' }, ['nodes', 'pods']), role('c', { a: '2', b: 'y' }, ['secrets']), role('n', {}, ['x'])];
  assert.deepEqual(
    aggregatedRules(target, roles).map((r) => r.resources![0]),
    ['secrets', 'nodes', 'pods'],
  );
});

test('aggregation: an absent list equals an empty one; order matters', () => {
  assert.ok(sameRules([{ verbs: ['get'], apiGroups: [] }], [{ verbs: ['get'] }]));
  assert.ok(sameRules(undefined, []));
  assert.ok(!sameRules([{ verbs: ['get'] }, { verbs: ['list'] }], [{ verbs: ['list'] }, { verbs: ['get'] }]));
});

test('aggregation: a bad selector is an error', () => {
  const target: ClusterRole = { metadata: { name: 't' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] } };
  assert.throws(() => aggregatedRules(target, [role('x', { a: 'b' }, ['pods'])]), /not a valid label selector operator/);
});

test('namespace conditions: all five reported, failures True, only status changes rewrite them', () => {
  const at = '2024-05-01T10:00:00Z';
  const first = new ConditionUpdater(() => at);
  first.contentRemaining(new Map([['roles.rbac.authorization.plat.io', 2], ['serviceaccounts', 1]]), new Map([['example.com/x', 3]]));
  const conditions = first.apply([])!;
  assert.deepEqual(
    conditions.map((c) => [c.type, c.status, c.reason]),
    [
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
      ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain'],
      ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain'],
    ],
  );
  assert.equal(conditions[3]!.message, 'Some resources are remaining: roles.rbac.authorization.plat.io has 2 resource instances, serviceaccounts has 1 resource instances');
  assert.equal(conditions[4]!.message, 'Some content in the namespace has finalizers remaining: example.com/x in 3 resource instances');

  // The same failures with other counts: no status changes, nothing to write.
  const again = new ConditionUpdater(() => '2024-05-01T10:01:00Z');
  again.contentRemaining(new Map([['serviceaccounts', 1]]), new Map([['example.com/x', 1]]));
  assert.equal(again.apply(conditions), undefined);

  // All clear: the two failures turn False with a new transition time.
  const clear = new ConditionUpdater(() => '2024-05-01T10:02:00Z');
  const cleared = clear.apply(conditions)!;
  assert.deepEqual(cleared.map((c) => c.status), ['False', 'False', 'False', 'False', 'False']);
  assert.equal(cleared[0]!.lastTransitionTime, at);
  assert.equal(cleared[3]!.lastTransitionTime, '2024-05-01T10:02:00Z');
});
