// What the chart gives those who run it: the apiservers' HorizontalPodAutoscaler, the
// PrometheusRule of their service-level alerts (promtool check rules, and promtool test rules
// firing each alert on series made for it and not on the others), the ServiceMonitor's two
// endpoints, and the Grafana dashboard's ConfigMap; and that every metric the rules and the
// dashboard read is one a replica of the rendered configuration serves.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { adminTokenFile, eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { CHART, HELM, NAMESPACE, RELEASE, apiserverOf, find, helm, render, type Manifest } from './support/helm.js';

const promtool = spawnSync('promtool', ['--version']).status === 0;
const JOB = `${RELEASE}-plat`;

const ruleOf = (values: string[] = []): Manifest => find(render(['prometheusRule.enabled=true', ...values]), 'PrometheusRule', `${RELEASE}-plat-apiserver`);
const dashboardJson = (): { panels: { id: number; type: string; title: string; datasource?: { uid: string }; targets?: { expr: string }[] }[]; templating: { list: { name: string }[] } } =>
  JSON.parse(readFileSync(join(CHART, 'dashboards/plat-apiserver.json'), 'utf8'));

/** Every PromQL expression of the rules and the dashboard. */
function expressions(): string[] {
  const rules = ruleOf().spec.groups.flatMap((group: { rules: { expr: string }[] }) => group.rules.map((rule) => rule.expr));
  const panels = dashboardJson().panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  return [...rules, ...panels];
}

/** The metric names an expression reads (a name before `{`), histogram series by their family's name. */
const metricsOf = (expr: string): string[] => [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((match) => match[1]!.replace(/_(bucket|sum|count)$/, ''));

describe('helm/plat: autoscaling, alerts and the dashboard', () => {
  before(() => assert.ok(existsSync(HELM), `no ${HELM}: make test fetches it (node scripts/fetch-helm.mjs .tools)`));

  it('the HPA is off by default; on, it scales the apiserver Deployment by CPU (and memory), and the Deployment leaves it the replica count', () => {
    const plain = render();
    assert.equal(plain.filter((manifest) => manifest.kind === 'HorizontalPodAutoscaler').length, 0);
    assert.equal(apiserverOf(plain).spec.replicas, 3);
    const manifests = render([
      'apiserver.autoscaling.enabled=true',
      'apiserver.autoscaling.minReplicas=2',
      'apiserver.autoscaling.maxReplicas=6',
      'apiserver.autoscaling.targetMemoryUtilizationPercentage=80',
      'apiserver.resources.requests.cpu=500m',
      'apiserver.resources.requests.memory=512Mi',
      'apiserver.autoscaling.behavior.scaleDown.stabilizationWindowSeconds=600',
    ]);
    const hpa = find(manifests, 'HorizontalPodAutoscaler', `${RELEASE}-plat-apiserver`);
    assert.equal(hpa.apiVersion, 'autoscaling/v2');
    assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: apiserverOf(manifests).metadata.name });
    assert.equal(hpa.spec.minReplicas, 2);
    assert.equal(hpa.spec.maxReplicas, 6);
    assert.deepEqual(
      hpa.spec.metrics.map((metric: Manifest) => [metric.resource.name, metric.resource.target.averageUtilization]),
      [
        ['cpu', 70],
        ['memory', 80],
      ],
    );
    assert.deepEqual(hpa.spec.behavior, { scaleDown: { stabilizationWindowSeconds: 600 } });
    assert.equal(apiserverOf(manifests).spec.replicas, undefined, 'an upgrade must not reset what the HPA chose');
  });

  it('the HPA refuses what cannot work, with a message naming the value', () => {
    const refusals: [string[], RegExp][] = [
      [['apiserver.autoscaling.enabled=true'], /targetCPUUtilizationPercentage needs apiserver\.resources\.requests\.cpu/],
      [['apiserver.autoscaling.enabled=true', 'apiserver.resources.requests.cpu=1', 'apiserver.autoscaling.targetMemoryUtilizationPercentage=80'], /needs apiserver\.resources\.requests\.memory/],
      [['apiserver.autoscaling.enabled=true', 'apiserver.autoscaling.targetCPUUtilizationPercentage=0'], /needs targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage/],
      [['apiserver.autoscaling.enabled=true', 'apiserver.resources.requests.cpu=1', 'apiserver.autoscaling.minReplicas=5', 'apiserver.autoscaling.maxReplicas=3'], /minReplicas is above maxReplicas/],
    ];
    for (const [values, message] of refusals) {
      const result = helm(['template', RELEASE, CHART, ...values.flatMap((value) => ['--set', value])]);
      assert.notEqual(result.status, 0, values.join(' '));
      assert.match(result.stderr, message);
    }
  });

  it('the ServiceMonitor scrapes /metrics and /metrics/slis (the health checks the replica-not-ready alert reads)', () => {
    const monitor = find(render(['serviceMonitor.enabled=true']), 'ServiceMonitor', `${RELEASE}-plat-apiserver`);
    assert.deepEqual(
      monitor.spec.endpoints.map((endpoint: Manifest) => endpoint.path),
      ['/metrics', '/metrics/slis'],
    );
    for (const endpoint of monitor.spec.endpoints) assert.deepEqual(endpoint.bearerTokenSecret, { name: `${RELEASE}-plat-auth`, key: 'admin-token' });
  });

  it('the PrometheusRule: one alert per service level, thresholds and the selector from the values', () => {
    const rule = ruleOf();
    const alerts = rule.spec.groups[0].rules.map((r: { alert: string }) => r.alert);
    assert.deepEqual(alerts, ['PlatApiserverMutatingLatencyHigh', 'PlatApiserverErrorRatioHigh', 'PlatApiserverEtcdLatencyHigh', 'PlatApiserverWatchCacheLagging', 'PlatApiserverReplicaNotReady']);
    for (const { expr } of rule.spec.groups[0].rules) assert.ok(expr.includes(`job="${JOB}"`), expr);
    const tuned = ruleOf([
      'prometheusRule.mutatingLatency.thresholdSeconds=2',
      'prometheusRule.errorRatio.threshold=0.01',
      'prometheusRule.selector=namespace="plat"\\,service="api"',
      'prometheusRule.alertLabels.team=platform',
      'prometheusRule.labels.release=prometheus',
    ]);
    const [latency, errors] = tuned.spec.groups[0].rules;
    assert.match(latency.expr, /\{namespace="plat",service="api",verb=~"POST\|PUT\|PATCH\|DELETE\|DELETECOLLECTION\|APPLY"\}\[5m\]\)\)\)\s+> 2\s*$/);
    assert.match(errors.expr, /> 0\.01\s*$/);
    assert.deepEqual(latency.labels, { severity: 'warning', team: 'platform' });
    assert.equal(tuned.metadata.labels?.release, 'prometheus');
  });

  it('promtool check rules passes, and promtool test rules fires each alert on its series and no other', { skip: !promtool && 'promtool is not installed (Debian package prometheus)' }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'plat-helm-rules-'));
    try {
      const rules = join(dir, 'rules.yaml');
      writeFileSync(rules, stringify({ groups: ruleOf().spec.groups }));
      const checked = spawnSync('promtool', ['check', 'rules', rules], { encoding: 'utf8' });
      assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
      assert.match(checked.stdout, /SUCCESS: 5 rules found/);

      const series = (name: string, labels: Record<string, string>, values: string) => ({
        series: `${name}{${Object.entries({ job: JOB, ...labels })
          .map(([key, value]) => `${key}="${value}"`)
          .join(',')}}`,
        values,
      });
      const replica = (pod: string) => ({ namespace: NAMESPACE, pod, instance: `${pod}:6443` });
      const tests = {
        rule_files: [rules],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: [
              // Mutating requests take 1 to 2 s (p99 1.99 s); reads are fast and do not count.
              series('apiserver_request_duration_seconds_bucket', { verb: 'POST', le: '1' }, '0x20'),
              series('apiserver_request_duration_seconds_bucket', { verb: 'POST', le: '2' }, '0+60x20'),
              series('apiserver_request_duration_seconds_bucket', { verb: 'POST', le: '+Inf' }, '0+60x20'),
              series('apiserver_request_duration_seconds_bucket', { verb: 'GET', le: '1' }, '0+600x20'),
              series('apiserver_request_duration_seconds_bucket', { verb: 'GET', le: '2' }, '0+600x20'),
              series('apiserver_request_duration_seconds_bucket', { verb: 'GET', le: '+Inf' }, '0+600x20'),
              // One request in ten a 5xx.
              series('apiserver_request_total', { code: '200' }, '0+90x20'),
              series('apiserver_request_total', { code: '503' }, '0+10x20'),
              // etcd gets take 0.4 to 0.6 s (p99 598 ms).
              series('etcd_request_duration_seconds_bucket', { operation: 'get', type: 'pods', le: '0.4' }, '0x20'),
              series('etcd_request_duration_seconds_bucket', { operation: 'get', type: 'pods', le: '0.6' }, '0+60x20'),
              series('etcd_request_duration_seconds_bucket', { operation: 'get', type: 'pods', le: '+Inf' }, '0+60x20'),
              // The pods cache trails by 8 s from minute 3; the namespaces cache by 1 s.
              series('plat_watch_cache_lag_seconds', { ...replica('a'), resource: 'pods' }, '0 0 0 8x20'),
              series('plat_watch_cache_lag_seconds', { ...replica('a'), resource: 'namespaces' }, '1x20'),
              // a is ready; b's etcd check fails; c cannot be scraped.
              series('kubernetes_healthcheck', { ...replica('a'), name: 'etcd', type: 'readyz' }, '1x20'),
              series('kubernetes_healthcheck', { ...replica('b'), name: 'etcd', type: 'readyz' }, '0x20'),
              series('kubernetes_healthcheck', { ...replica('b'), name: 'ping', type: 'readyz' }, '1x20'),
              series('up', replica('a'), '1x20'),
              series('up', replica('b'), '1x20'),
              series('up', replica('c'), '0x20'),
              // Another job's slow requests are not ours.
              { series: 'apiserver_request_duration_seconds_bucket{job="elsewhere",verb="PUT",le="+Inf"}', values: '0+60x20' },
            ],
            alert_rule_test: [
              {
                eval_time: '15m',
                alertname: 'PlatApiserverMutatingLatencyHigh',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'warning' },
                    exp_annotations: {
                      summary: 'Mutating requests to the apiservers are slow.',
                      description: 'The 99th percentile of mutating requests (POST, PUT, PATCH, DELETE, APPLY) is 1.99s, above 1s.',
                    },
                  },
                ],
              },
              // Firing takes 10 minutes of it.
              { eval_time: '8m', alertname: 'PlatApiserverMutatingLatencyHigh', exp_alerts: [] },
              {
                eval_time: '15m',
                alertname: 'PlatApiserverErrorRatioHigh',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'critical' },
                    exp_annotations: { summary: 'The apiservers answer too many requests with a 5xx.', description: '10% of the requests got a 5xx answer in the last 5 minutes, above 0.05.' },
                  },
                ],
              },
              {
                eval_time: '15m',
                alertname: 'PlatApiserverEtcdLatencyHigh',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'warning', operation: 'get' },
                    exp_annotations: { summary: 'etcd answers the apiservers slowly.', description: "The 99th percentile of the apiservers' etcd get requests is 598ms, above 0.5s." },
                  },
                ],
              },
              {
                eval_time: '15m',
                alertname: 'PlatApiserverWatchCacheLagging',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'warning', ...replica('a'), resource: 'pods' },
                    exp_annotations: {
                      summary: 'A watch cache trails etcd.',
                      description: 'The watch cache of pods on a:6443 has missed a write for 8s, above 5s: its watches and lists are stale.',
                    },
                  },
                ],
              },
              {
                eval_time: '15m',
                alertname: 'PlatApiserverReplicaNotReady',
                exp_alerts: ['b', 'c'].map((pod) => ({
                  exp_labels: { severity: 'warning', ...replica(pod) },
                  exp_annotations: { summary: 'An apiserver replica is not ready.', description: `${pod}:6443: a /readyz check fails, or the replica cannot be scraped.` },
                })),
              },
            ],
          },
        ],
      };
      const testFile = join(dir, 'rules.test.yaml');
      writeFileSync(testFile, stringify(tests));
      const tested = spawnSync('promtool', ['test', 'rules', testFile], { encoding: 'utf8' });
      assert.equal(tested.status, 0, `${tested.stdout}${tested.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the dashboard: a ConfigMap the Grafana sidecar picks up by its label, with the chart\'s JSON', () => {
    assert.equal(render().filter((manifest) => manifest.metadata.name === `${RELEASE}-plat-dashboard`).length, 0);
    const configMap = find(
      render(['grafanaDashboard.enabled=true', 'grafanaDashboard.label=dashboards', 'grafanaDashboard.labelValue=plat', 'grafanaDashboard.namespace=monitoring', 'grafanaDashboard.annotations.grafana_folder=Plat']),
      'ConfigMap',
      `${RELEASE}-plat-dashboard`,
    );
    assert.equal(configMap.metadata.labels?.dashboards, 'plat');
    assert.equal(configMap.metadata.namespace, 'monitoring');
    assert.deepEqual(configMap.metadata.annotations, { grafana_folder: 'Plat' });
    assert.deepEqual(JSON.parse(configMap.data['plat-apiserver.json']), dashboardJson());
    assert.equal(find(render(['grafanaDashboard.enabled=true']), 'ConfigMap', `${RELEASE}-plat-dashboard`).metadata.labels?.grafana_dashboard, '1');
  });

  it('the dashboard\'s panels: unique ids, the datasource and job variables, a query each', () => {
    const dashboard = dashboardJson();
    const ids = dashboard.panels.map((panel) => panel.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(dashboard.templating.list.map((variable) => variable.name), ['datasource', 'job']);
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
      assert.equal(panel.datasource?.uid, '${datasource}', panel.title);
      assert.ok(panel.targets?.length, panel.title);
      for (const { expr } of panel.targets!) assert.ok(expr.includes('job=~"$job"'), `${panel.title}: ${expr}`);
    }
  });
});

describe('helm/plat: the metrics the alerts and the dashboard read are served', () => {
  let server: ApiserverProcess;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;

  before(async () => {
    tokens = await adminTokenFile();
    server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`]);
    await eventually('readyz', async () => (await server.request('/readyz')).status === 200);
  });
  after(async () => {
    await server?.stop();
    await tokens?.cleanup();
  });

  it('every metric of every rule and panel is declared on /metrics or /metrics/slis (up is Prometheus\' own)', async () => {
    const declared = new Set<string>();
    for (const path of ['/metrics', '/metrics/slis']) {
      const body = (await server.request(path, { token: tokens.token })).body;
      for (const match of body.matchAll(/^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) /gm)) declared.add(match[1]!);
    }
    const read = new Set(expressions().flatMap(metricsOf));
    read.delete('up');
    assert.ok(read.size >= 15, [...read].join(', '));
    assert.deepEqual([...read].filter((name) => !declared.has(name)), []);
  });
});
