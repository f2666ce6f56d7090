// bench/merge: server-side apply of a 200-field object with 20 list entries (a no-op re-apply by a
// second manager, and a one-field change), and a strategic merge patch of the same object.
// Prints the median and p90 microseconds per operation as JSON.
import { apply, applyStrategicMergePatch, fieldSetFromObject, recordUpdate } from '@plat/merge';
import { widgetSchema } from '@plat/merge/testing';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 3000);
const WARM_UP = 300;

function measure(operation: () => unknown): { medianMicros: number; p90Micros: number } {
  for (let i = 0; i < WARM_UP; i++) operation();
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const started = process.hrtime.bigint();
    operation();
    times.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.floor(times.length * q)]! * 10) / 10;
  return { medianMicros: at(0.5), p90Micros: at(0.9) };
}

const labels = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`label-${i}`, `v${i}`]));
const data = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key-${i}`, `value-${i}`]));
const containers = Array.from({ length: 20 }, (_, i) => ({
  name: `c${i}`,
  image: `img:${i}`,
  args: ['a', 'b'],
  env: [
    { name: 'A', value: '1' },
    { name: 'B', value: '2' },
    { name: 'C', value: '3' },
  ],
}));
const intent = {
  apiVersion: 'example.plat.io/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', labels },
  spec: { replicas: 3, paused: false, containers, data, tags: ['a', 'b', 'c'] },
};
const options = { manager: 'alice', force: false, apiVersion: 'example.plat.io/v1', now: '2026-01-01T00:00:00Z', schema: widgetSchema };
const created = apply(null, intent, options);
const live = { ...created.object, metadata: { ...(created.object.metadata as object), uid: 'u', resourceVersion: '5', managedFields: created.managedFields } };
const changed = structuredClone(intent);
changed.spec.containers[5]!.image = 'img:new';
const updated = structuredClone(live) as typeof live & { spec: { replicas: number } };
updated.spec.replicas = 4;

const result = {
  benchmark: 'merge',
  fields: fieldSetFromObject(intent, widgetSchema).size,
  listEntries: containers.length,
  noOpApplyBySecondManager: measure(() => apply(live, intent, { ...options, manager: 'bob' })),
  noOpApply: measure(() => apply(live, intent, options)),
  oneFieldApply: measure(() => apply(live, changed, options)),
  strategicMergePatch: measure(() =>
    applyStrategicMergePatch(live, { spec: { containers: [{ name: 'c5', image: 'x' }] }, metadata: { labels: { a: 'b' } } }, widgetSchema),
  ),
  recordUpdate: measure(() => recordUpdate(live, updated, { ...options, manager: 'controller' })),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
