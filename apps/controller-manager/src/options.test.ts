import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usage } from '@plat/apimachinery';
import { controllerManagerFlags, parseCommandLine } from './options.js';

test('--help: each flag states its default once, after its description', () => {
  const lines = usage('plat-controller-manager', controllerManagerFlags).split('\n');
  assert.deepEqual(lines.filter((line) => /\(default [^)]*\).*\(default /.test(line)), []);
  assert.match(lines.find((line) => line.includes('--leader-elect-lease-duration'))!, /renewal before taking the lease over\. \(default 15s\)$/);
});

test('--feature-gates: the cluster\'s gates, with upstream\'s refusals and warnings', () => {
  const parse = (...argv: string[]) => {
    const parsed = parseCommandLine(['--kubeconfig=/k', ...argv]);
    assert.ok(!parsed.help);
    return parsed.config;
  };
  assert.equal(parse().featureGates.enabled('WatchList'), false);
  const set = parse('--feature-gates=WatchList=true,ServerSideApply=true');
  assert.equal(set.featureGates.enabled('WatchList'), true);
  assert.deepEqual(set.featureGateWarnings, ['Setting GA feature gate ServerSideApply=true. It will be removed in a future release.']);
  assert.throws(() => parse('--feature-gates=ServerSideApply=false'), {
    message: 'invalid value "ServerSideApply=false" for flag --feature-gates: cannot set feature gate ServerSideApply to false, feature is locked to true',
  });
  assert.throws(() => parse('--feature-gates=DryRun=true'), { message: 'invalid value "DryRun=true" for flag --feature-gates: unrecognized feature gate: DryRun' });
});

test('--show-hidden-metrics-for-version: the previous minor release only', () => {
  const parsed = parseCommandLine(['--kubeconfig=/k', '--show-hidden-metrics-for-version=1.27']);
  assert.ok(!parsed.help);
  assert.equal(parsed.config.showHiddenMetricsForVersion, '1.27');
  assert.throws(() => parseCommandLine(['--kubeconfig=/k', '--show-hidden-metrics-for-version=1.28']), {
    message: "--show-hidden-metrics-for-version must be omitted or have the value '1.27'. Only the previous minor version is allowed",
  });
});
