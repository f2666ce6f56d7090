import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Registry } from 'prom-client';
import { MetricsStability, checkShowHiddenMetricsForVersion, type MetricStability } from './metrics-stability.js';

const at128 = { major: 1, minor: 28 };

describe('metrics stability: HELP and hiding at 1.28, one row per rule', () => {
  const rows: Array<{ rule: string; stability: MetricStability; show?: boolean; help: string; hidden: boolean }> = [
    { rule: 'a STABLE metric says so first', stability: { stabilityLevel: 'STABLE' }, help: '[STABLE] Counts.', hidden: false },
    { rule: 'a BETA metric', stability: { stabilityLevel: 'BETA' }, help: '[BETA] Counts.', hidden: false },
    { rule: 'an ALPHA metric', stability: { stabilityLevel: 'ALPHA' }, help: '[ALPHA] Counts.', hidden: false },
    {
      rule: 'deprecated in this release: the prefix after the class, still shown',
      stability: { stabilityLevel: 'STABLE', deprecatedVersion: '1.28.0' },
      help: '[STABLE] (Deprecated since 1.28.0) Counts.',
      hidden: false,
    },
    {
      rule: 'deprecated two releases ago: still shown',
      stability: { stabilityLevel: 'BETA', deprecatedVersion: '1.26.0' },
      help: '[BETA] (Deprecated since 1.26.0) Counts.',
      hidden: false,
    },
    {
      rule: 'deprecated three releases ago (current - 3): hidden',
      stability: { stabilityLevel: 'STABLE', deprecatedVersion: '1.25.0' },
      help: '[STABLE] (Deprecated since 1.25.0) Counts.',
      hidden: true,
    },
    {
      rule: '... shown again with --show-hidden-metrics-for-version',
      stability: { stabilityLevel: 'STABLE', deprecatedVersion: '1.25.0' },
      show: true,
      help: '[STABLE] (Deprecated since 1.25.0) Counts.',
      hidden: false,
    },
    {
      rule: 'a deprecation planned for a later release does not count yet',
      stability: { stabilityLevel: 'ALPHA', deprecatedVersion: '1.29.0' },
      help: '[ALPHA] Counts.',
      hidden: false,
    },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const stability = new MetricsStability(new Registry(), { version: at128, ...(row.show && { showHiddenMetricsForVersion: '1.27' }) });
      assert.equal(stability.help('Counts.', row.stability), row.help);
      assert.equal(stability.isHidden(row.stability), row.hidden);
    });
  }
});

test('metrics stability: a hidden metric still counts but is not exposed; the meta metrics say what was registered and hidden', async () => {
  const registry = new Registry();
  const stability = new MetricsStability(registry, { version: at128 });
  const shown = new Counter({ name: 'shown_total', ...stability.declare('Shown.', { stabilityLevel: 'STABLE', deprecatedVersion: '1.27.0' }) });
  const hidden = new Counter({ name: 'old_total', ...stability.declare('Old.', { stabilityLevel: 'ALPHA', deprecatedVersion: '1.24.0' }) });
  shown.inc();
  hidden.inc(2);
  assert.equal((await hidden.get()).values[0]!.value, 2);
  const text = await registry.metrics();
  assert.match(text, /^# HELP shown_total \[STABLE\] \(Deprecated since 1\.27\.0\) Shown\.$/m);
  assert.doesNotMatch(text, /old_total/);
  assert.match(text, /^registered_metrics_total\{stability_level="STABLE",deprecated_version="1\.27\.0"\} 1$/m);
  assert.match(text, /^hidden_metrics_total 1$/m);
});

describe('metrics stability: --show-hidden-metrics-for-version takes the previous minor release only, as upstream', () => {
  const refusal = "--show-hidden-metrics-for-version must be omitted or have the value '1.27'. Only the previous minor version is allowed";
  for (const [value, want] of [
    ['', undefined],
    ['1.27', undefined],
    ['1.28', refusal],
    ['1.26', refusal],
    ['1.27.0', refusal],
    ['v1.27', refusal],
  ] as const) {
    test(JSON.stringify(value), () => assert.equal(checkShowHiddenMetricsForVersion(value, at128), want));
  }
});
