import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { LateStoreCheck } from '../admission/late-check.js';
import { captureLogger } from '../testing/index.js';
import { LateBinding } from './late-binding.js';

test('a late binding read before it is set fails closed with a 500, logged; once set, it is the value, set once', () => {
  const { logger, lines } = captureLogger();
  const binding = new LateBinding<{ answer: number }>("the never-stored kinds' services", logger);
  assert.throws(() => binding.get(), (error: unknown) => isStatusError(error) && error.code === 500 && /the never-stored kinds' services is not ready/.test(error.message));
  assert.ok(lines.some((line) => line.level === 50 && /is not ready/.test(line.msg)));
  binding.set({ answer: 42 });
  assert.equal(binding.get().answer, 42);
  assert.throws(() => binding.set({ answer: 1 }), /bound twice/);
});

test('a late store check refuses every write until provided, then runs what it was given', async () => {
  const { logger } = captureLogger();
  const late = new LateStoreCheck('the RBAC escalation check', logger);
  const attributes = { uid: 'u', operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'X' }, namespace: '', name: 'x', dryRun: false } as unknown as Parameters<typeof late.check>[0];
  assert.throws(() => late.check(attributes), (error: unknown) => isStatusError(error) && error.code === 500 && /not ready: the write is refused/.test(error.message));
  const seen: string[] = [];
  late.provide((a) => void seen.push(a.name));
  await late.check(attributes);
  assert.deepEqual(seen, ['x']);
});
