// helm/plat rendered by helm 3 (make test puts it in .tools/helm: scripts/fetch-helm.mjs): lint,
// the objects and their wiring for several sets of values, every flag known to the binaries, and
// the rendered configuration itself (its certificate, tokens, signing key, args and kubeconfig)
// serving on etcd with the controller-manager working through it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { sharedEtcd, type TestEtcd } from '@plat/storage/testing';
import { startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { startControllerManager, type ControllerManagerProcess } from './support/controller-manager-process.js';
import { CHART, HELM, NAMESPACE, RELEASE, ROOT, apiserverOf, containerOf, find, helm, render, type Manifest } from './support/helm.js';

const managerOf = (manifests: Manifest[]): Manifest => find(manifests, 'Deployment', `${RELEASE}-plat-controller-manager`);

/** A Secret's data as files' contents (stringData as it is, data decoded). */
function secretFiles(secret: Manifest): Record<string, string> {
  const files: Record<string, string> = { ...(secret.stringData ?? {}) };
  for (const [key, value] of Object.entries((secret.data ?? {}) as Record<string, string>)) files[key] = Buffer.from(value, 'base64').toString('utf8');
  return files;
}

/** The --flag names a binary's --help lists. */
function knownFlags(binary: string): Set<string> {
  const help = execFileSync(join(ROOT, 'bin', binary), ['--help'], { encoding: 'utf8' });
  return new Set([...help.matchAll(/^ {2}--([a-z0-9-]+)/gm)].map((match) => match[1]!));
}

describe('helm/plat, rendered by helm', () => {
  const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;
  const templates = readdirSync(join(CHART, 'templates'));
  before(() => assert.ok(existsSync(HELM), `no ${HELM}: make test fetches it (node scripts/fetch-helm.mjs .tools)`));

  it('passes helm lint --strict with the default values and with every option switched', () => {
    for (const values of [
      [],
      [
        'serviceMonitor.enabled=true',
        'redis.url=redis://redis:6379',
        'apiserver.podAntiAffinity=hard',
        'apiDomain=k8s.io',
        'etcd.tls.existingSecret=etcd-client',
        'encryption.existingSecret=plat-encryption',
        'prometheusRule.enabled=true',
        'grafanaDashboard.enabled=true',
        'apiserver.autoscaling.enabled=true',
        'apiserver.resources.requests.cpu=500m',
      ],
      ['controllerManager.enabled=false', 'apiserver.podDisruptionBudget.enabled=false', 'apiserver.podAntiAffinity=', 'tls.create=false', 'tls.existingSecret=certs'],
    ]) {
      const result = helm(['lint', '--strict', CHART, ...values.flatMap((value) => ['--set', value])]);
      assert.equal(result.status, 0, `${values.join(' ')}\n${result.stdout}${result.stderr}`);
    }
  });

  it('renders the Deployments, Service, PodDisruptionBudget, Secrets and ConfigMap; a ServiceMonitor, PrometheusRule, dashboard and HPA only when asked', () => {
    const objects = (manifests: Manifest[]) => manifests.map((m) => `${m.kind} ${m.metadata.name}`).sort();
    const base = [
      `ConfigMap ${RELEASE}-plat-controller-manager`,
      `Deployment ${RELEASE}-plat-apiserver`,
      `Deployment ${RELEASE}-plat-controller-manager`,
      `PodDisruptionBudget ${RELEASE}-plat-apiserver`,
      `Secret ${RELEASE}-plat-auth`,
      `Secret ${RELEASE}-plat-service-account-key`,
      `Secret ${RELEASE}-plat-tls`,
      `Service ${RELEASE}-plat`,
    ];
    assert.deepEqual(objects(render()), base);
    assert.deepEqual(objects(render(['serviceMonitor.enabled=true'])), [...base, `ServiceMonitor ${RELEASE}-plat-apiserver`].sort());
    assert.deepEqual(
      objects(render(['prometheusRule.enabled=true', 'grafanaDashboard.enabled=true', 'apiserver.autoscaling.enabled=true', 'apiserver.resources.requests.cpu=1'])),
      [...base, `PrometheusRule ${RELEASE}-plat-apiserver`, `ConfigMap ${RELEASE}-plat-dashboard`, `HorizontalPodAutoscaler ${RELEASE}-plat-apiserver`].sort(),
    );
    assert.deepEqual(
      objects(render(['controllerManager.enabled=false', 'apiserver.podDisruptionBudget.enabled=false'])),
      base.filter((object) => !object.includes('controller-manager') && !object.startsWith('PodDisruptionBudget')),
    );
  });

  it('the apiserver: replicas, probes on /readyz and /livez, anti-affinity; the Service, budget and monitor select its pods', () => {
    const cases: { values: string[]; replicas: number; affinity: 'preferred' | 'required' | 'none' }[] = [
      { values: [], replicas: 3, affinity: 'preferred' },
      { values: ['apiserver.replicas=5', 'apiserver.podAntiAffinity=hard'], replicas: 5, affinity: 'required' },
      { values: ['apiserver.podAntiAffinity='], replicas: 3, affinity: 'none' },
    ];
    for (const { values, replicas, affinity } of cases) {
      const manifests = render(['serviceMonitor.enabled=true', ...values]);
      const deployment = apiserverOf(manifests);
      const name = values.join(' ') || 'defaults';
      assert.equal(deployment.spec.replicas, replicas, name);
      const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
      const selects = (selector: Record<string, string>) => Object.entries(selector).every(([key, value]) => podLabels[key] === value);
      assert.ok(selects(deployment.spec.selector.matchLabels), `${name}: the Deployment selects its pods`);
      const container = containerOf(deployment);
      assert.deepEqual(container.readinessProbe.httpGet, { path: '/readyz', port: 'https', scheme: 'HTTPS' }, name);
      assert.deepEqual(container.livenessProbe.httpGet, { path: '/livez', port: 'https', scheme: 'HTTPS' }, name);
      const antiAffinity = deployment.spec.template.spec.affinity?.podAntiAffinity;
      if (affinity === 'none') assert.equal(antiAffinity, undefined, name);
      else {
        const terms = antiAffinity[`${affinity}DuringSchedulingIgnoredDuringExecution`];
        const term = affinity === 'preferred' ? terms[0].podAffinityTerm : terms[0];
        assert.equal(term.topologyKey, 'kubernetes.io/hostname', name);
        assert.ok(selects(term.labelSelector.matchLabels), `${name}: the anti-affinity is against its own pods`);
      }
      const service = find(manifests, 'Service', `${RELEASE}-plat`);
      assert.ok(selects(service.spec.selector), `${name}: the Service selects the apiserver pods`);
      assert.equal(service.spec.ports[0].targetPort, container.ports[0].name);
      const budget = find(manifests, 'PodDisruptionBudget', `${RELEASE}-plat-apiserver`);
      assert.ok(selects(budget.spec.selector.matchLabels), `${name}: the budget covers the apiserver pods`);
      assert.equal(budget.spec.maxUnavailable, 1);
      const monitor = find(manifests, 'ServiceMonitor', `${RELEASE}-plat-apiserver`);
      assert.deepEqual(monitor.spec.selector.matchLabels, Object.fromEntries(Object.entries(service.metadata.labels!).filter(([key]) => key in monitor.spec.selector.matchLabels)));
      assert.deepEqual(monitor.spec.endpoints[0].bearerTokenSecret, { name: `${RELEASE}-plat-auth`, key: 'admin-token' });
    }
  });

  it('external etcd and redis values reach the apiserver; every flag either binary is given is one it knows', () => {
    const apiserverFlags = knownFlags('plat-apiserver');
    const managerFlags = knownFlags('plat-controller-manager');
    const cases: { values: string[]; etcd: string; redis?: string }[] = [
      { values: [], etcd: 'http://etcd:2379' },
      { values: ['etcd.servers={https://a:2379,https://b:2379}', 'redis.url=redis://cache:6379/1'], etcd: 'https://a:2379,https://b:2379', redis: 'redis://cache:6379/1' },
      { values: ['redis.existingSecret=redis-credentials'], etcd: 'http://etcd:2379', redis: 'secret' },
    ];
    for (const { values, etcd, redis } of cases) {
      const manifests = render(values);
      const container = containerOf(apiserverOf(manifests));
      const args = container.args as string[];
      assert.ok(args.includes(`--etcd-servers=${etcd}`), args.join(' '));
      const env = (container.env ?? []) as { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
      if (!redis) assert.ok(!args.some((arg) => arg.startsWith('--redis-url')));
      else {
        // $(NAME) in args is expanded by the kubelet from the container's environment.
        assert.ok(args.includes('--redis-url=$(PLAT_REDIS_URL)'));
        const variable = env.find((entry) => entry.name === 'PLAT_REDIS_URL')!;
        if (redis === 'secret') assert.deepEqual(variable.valueFrom, { secretKeyRef: { name: 'redis-credentials', key: 'redis-url' } });
        else assert.equal(variable.value, redis);
      }
      const unknown = (flags: Set<string>, given: string[]) => given.map((arg) => /^--([a-z0-9-]+)/.exec(arg)?.[1]).filter((flag) => flag !== undefined && !flags.has(flag));
      assert.deepEqual(unknown(apiserverFlags, args), [], 'apiserver flags');
      assert.deepEqual(unknown(managerFlags, containerOf(managerOf(manifests)).args), [], 'controller-manager flags');
    }
  });

  it('etcd over TLS: a Secret of the CA and client certificate, mounted, and the three flags', () => {
    const plain = containerOf(apiserverOf(render([])));
    assert.ok(!(plain.args as string[]).some((arg) => arg.startsWith('--etcd-cafile')));
    const manifests = render(['etcd.servers={https://a:2379,https://b:2379,https://c:2379}', 'etcd.tls.existingSecret=etcd-client']);
    const deployment = apiserverOf(manifests);
    const container = containerOf(deployment);
    for (const flag of ['--etcd-cafile=/etc/plat/etcd/ca.crt', '--etcd-certfile=/etc/plat/etcd/tls.crt', '--etcd-keyfile=/etc/plat/etcd/tls.key']) {
      assert.ok((container.args as string[]).includes(flag), flag);
    }
    assert.deepEqual(container.volumeMounts.find((mount: Manifest) => mount.name === 'etcd-tls'), { name: 'etcd-tls', mountPath: '/etc/plat/etcd', readOnly: true });
    const volume = deployment.spec.template.spec.volumes.find((entry: Manifest) => entry.name === 'etcd-tls');
    assert.equal(volume.secret.secretName, 'etcd-client');
    assert.deepEqual(volume.secret.items.map((item: { key: string }) => item.key), ['ca.crt', 'tls.crt', 'tls.key']);
  });

  it('encryption at rest: a Secret holding the EncryptionConfiguration, mounted, and the flag', () => {
    assert.ok(!(containerOf(apiserverOf(render([]))).args as string[]).some((arg) => arg.startsWith('--encryption-provider-config')));
    const deployment = apiserverOf(render(['encryption.existingSecret=plat-encryption']));
    const container = containerOf(deployment);
    assert.ok((container.args as string[]).includes('--encryption-provider-config=/etc/plat/encryption/encryption-config.yaml'));
    assert.deepEqual(container.volumeMounts.find((mount: Manifest) => mount.name === 'encryption'), { name: 'encryption', mountPath: '/etc/plat/encryption', readOnly: true });
    const volume = deployment.spec.template.spec.volumes.find((entry: Manifest) => entry.name === 'encryption');
    assert.deepEqual(volume.secret, { secretName: 'plat-encryption', items: [{ key: 'encryption-config.yaml', path: 'encryption-config.yaml' }] });
  });

  it('the controller-manager runs as its own user, in no group, with service-account credentials and no admin token', () => {
    for (const [domain, user] of [
      ['plat.io', 'system:plat-controller-manager'],
      ['k8s.io', 'system:kube-controller-manager'],
    ] as const) {
      const manifests = render([`apiDomain=${domain}`]);
      const auth = secretFiles(find(manifests, 'Secret', `${RELEASE}-plat-auth`));
      const lines = auth['tokens.csv']!.trim().split('\n');
      assert.deepEqual(lines, [`${auth['admin-token']},admin,admin-uid,"system:masters"`, `${auth['controller-manager-token']},${user},controller-manager-uid`]);
      const manager = managerOf(manifests);
      assert.ok(containerOf(manager).args.includes('--use-service-account-credentials'));
      const authVolume = manager.spec.template.spec.volumes.find((volume: Manifest) => volume.name === 'auth');
      assert.deepEqual(authVolume.secret.items, [{ key: 'controller-manager-token', path: 'controller-manager-token' }]);
      const kubeconfig = parse(find(manifests, 'ConfigMap', `${RELEASE}-plat-controller-manager`).data.kubeconfig);
      assert.equal(kubeconfig.users[0].user.tokenFile, '/etc/plat/auth/controller-manager-token');
      assert.equal(kubeconfig.clusters[0].cluster.server, `https://${RELEASE}-plat.${NAMESPACE}.svc:443`);
    }
  });

  it('every template references only values that exist in values.yaml', () => {
    const missing: string[] = [];
    for (const file of templates) {
      for (const match of readFileSync(join(CHART, 'templates', file), 'utf8').matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
        let node: unknown = values;
        for (const key of match[1]!.slice(1).split('.')) {
          if (node === null || typeof node !== 'object' || !(key in node)) {
            missing.push(`${file}: .Values${match[1]}`);
            break;
          }
          node = (node as Record<string, unknown>)[key];
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  it('its README documents every value and every template', () => {
    const readme = readFileSync(join(CHART, 'README.md'), 'utf8');
    /** Dotted paths of values.yaml, down to scalars, lists and empty maps. */
    const leaves = (node: unknown, prefix = ''): string[] =>
      node !== null && typeof node === 'object' && !Array.isArray(node) && Object.keys(node).length > 0
        ? Object.entries(node).flatMap(([key, child]) => leaves(child, prefix ? `${prefix}.${key}` : key))
        : [prefix];
    assert.deepEqual(leaves(values).filter((path) => !readme.includes(`\`${path}\``)), [], 'values missing from helm/plat/README.md');
    assert.deepEqual(templates.filter((file) => !readme.includes(file)), [], 'templates missing from helm/plat/README.md');
  });
});

describe('helm/plat: the rendered configuration serves', () => {
  let etcd: TestEtcd;
  let folder: string;
  let apiserver: ApiserverProcess;
  let manager: ControllerManagerProcess | undefined;
  let adminToken: string;

  before(async () => {
    const manifests = render();
    folder = mkdtempSync(join(tmpdir(), 'plat-helm-rendered-'));
    /** The pod's mounts, as files under the folder. */
    const mounted = (path: string): string => join(folder, path);
    /** Rendered text with the pod's paths moved under the folder. */
    const local = (text: string): string => text.replace(/\/etc\/plat\//g, `${folder}/etc/plat/`);
    const write = (path: string, content: string): void => {
      mkdirSync(dirname(mounted(path)), { recursive: true });
      writeFileSync(mounted(path), content);
    };
    for (const [name, mount] of [
      ['tls', '/etc/plat/tls'],
      ['auth', '/etc/plat/auth'],
      ['service-account-key', '/etc/plat/service-account'],
    ] as const) {
      for (const [file, content] of Object.entries(secretFiles(find(manifests, 'Secret', `${RELEASE}-plat-${name}`)))) write(`${mount}/${file}`, content);
    }
    adminToken = readFileSync(mounted('/etc/plat/auth/admin-token'), 'utf8');
    etcd = await sharedEtcd();
    // The rendered args with the pod's paths under the folder; the address, port and etcd are the test's.
    const own = ['--bind-address', '--secure-port', '--etcd-servers', '--log-level'];
    const args = (containerOf(apiserverOf(manifests)).args as string[])
      .filter((arg) => !own.some((flag) => arg.startsWith(`${flag}=`)))
      .map(local);
    apiserver = await startApiserver([...args, ...etcd.flags], { ca: readFileSync(mounted('/etc/plat/tls/ca.crt'), 'utf8') });
    // The controller-manager's kubeconfig as rendered, pointed at this replica (127.0.0.1 is in the certificate).
    const kubeconfig = find(manifests, 'ConfigMap', `${RELEASE}-plat-controller-manager`).data.kubeconfig as string;
    write(
      '/etc/plat/kubeconfig/kubeconfig',
      local(kubeconfig.replace(`https://${RELEASE}-plat.${NAMESPACE}.svc:443`, apiserver.url)),
    );
    manager = await startControllerManager((containerOf(managerOf(manifests)).args as string[]).map(local));
  });

  after(async () => {
    await manager?.stop();
    await apiserver?.stop();
    await etcd?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('serves /readyz over the generated certificate, and the generated admin token is a cluster admin', async () => {
    assert.equal((await apiserver.request('/readyz')).status, 200);
    const namespaces = await apiserver.request('/api/v1/namespaces', { token: adminToken });
    assert.equal(namespaces.status, 200, namespaces.body);
  });

  it('the controller-manager leads through it and does its work as its own accounts: a new namespace gets its default ServiceAccount', async () => {
    await manager!.waitForLog('started leading', 30_000);
    const created = await apiserver.request('/api/v1/namespaces', { method: 'POST', token: adminToken, body: { metadata: { name: 'from-helm' } } });
    assert.equal(created.status, 201, created.body);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const account = await apiserver.request('/api/v1/namespaces/from-helm/serviceaccounts/default', { token: adminToken });
      if (account.status === 200) break;
      assert.ok(Date.now() < deadline, `no default ServiceAccount: ${account.body}\n${manager!.logs().slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
