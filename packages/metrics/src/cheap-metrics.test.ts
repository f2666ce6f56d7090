import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { CheapCounter, CheapHistogram } from './cheap-metrics.js';

const buckets = [1024, 2048, 4096];

describe('CheapHistogram', () => {
  const cases: { name: string; observations: { labels: Record<'kind', string>; value: number }[] }[] = [
    { name: 'nothing observed', observations: [] },
    { name: 'one value in each bucket and one above all', observations: [100, 1024, 1500, 4096, 5000].map((value) => ({ labels: { kind: 'Pod' }, value })) },
    {
      name: 'two label sets',
      observations: [
        { labels: { kind: 'Pod' }, value: 700 },
        { labels: { kind: 'Secret' }, value: 3000 },
        { labels: { kind: 'Pod' }, value: 2048 },
      ],
    },
  ];
  for (const { name, observations } of cases) {
    it(`exposes what prom-client's Histogram exposes: ${name}`, async () => {
      const ours = new Registry();
      const theirs = new Registry();
      const cheap = new CheapHistogram('sizes', 'Sizes in bytes', ['kind'], buckets, [ours]);
      const reference = new Histogram({ name: 'sizes', help: 'Sizes in bytes', labelNames: ['kind'], buckets, registers: [theirs] });
      for (const { labels, value } of observations) {
        cheap.labels(labels).observe(value);
        reference.observe(labels, value);
      }
      assert.equal(await ours.metrics(), await theirs.metrics());
    });
  }

  it('a series handed out keeps counting after a reset, from zero', async () => {
    const registry = new Registry();
    const cheap = new CheapHistogram('sizes', 'Sizes in bytes', ['kind'], buckets, [registry]);
    const series = cheap.labels({ kind: 'Pod' });
    series.observe(10);
    registry.resetMetrics();
    series.observe(3000);
    assert.match(await registry.metrics(), /sizes_count\{kind="Pod"\} 1\n/);
    assert.match(await registry.metrics(), /sizes_bucket\{le="4096",kind="Pod"\} 1\n/);
  });
});

describe('CheapCounter', () => {
  const cases: { name: string; increments: { labels: Record<'kind' | 'code', string>; value?: number }[] }[] = [
    { name: 'nothing counted', increments: [] },
    { name: 'one label set, by one and by more', increments: [{ labels: { kind: 'Pod', code: '200' } }, { labels: { kind: 'Pod', code: '200' }, value: 5 }] },
    {
      name: 'label sets that differ in one label',
      increments: [
        { labels: { kind: 'Pod', code: '200' } },
        { labels: { kind: 'Pod', code: '404' } },
        { labels: { kind: 'Secret', code: '200' }, value: 2 },
        { labels: { kind: 'Pod', code: '200' } },
      ],
    },
  ];
  for (const { name, increments } of cases) {
    it(`exposes what prom-client's Counter exposes: ${name}`, async () => {
      const ours = new Registry();
      const theirs = new Registry();
      const cheap = new CheapCounter('requests_total', 'Requests', ['kind', 'code'], [ours]);
      const reference = new Counter({ name: 'requests_total', help: 'Requests', labelNames: ['kind', 'code'], registers: [theirs] });
      for (const { labels, value } of increments) {
        cheap.labels(labels).inc(value);
        reference.inc(labels, value ?? 1);
      }
      assert.equal(await ours.metrics(), await theirs.metrics());
    });
  }

  it('a series handed out keeps counting after a reset, from zero', async () => {
    const registry = new Registry();
    const cheap = new CheapCounter('requests_total', 'Requests', ['kind'], [registry]);
    const series = cheap.labels({ kind: 'Pod' });
    series.inc(3);
    registry.resetMetrics();
    series.inc();
    assert.match(await registry.metrics(), /requests_total\{kind="Pod"\} 1\n/);
  });
});
