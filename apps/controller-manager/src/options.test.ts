import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usage } from '@plat/apimachinery';
import { controllerManagerFlags } from './options.js';

test('--help: each flag states its default once, after its description', () => {
  const lines = usage('plat-controller-manager', controllerManagerFlags).split('\n');
  assert.deepEqual(lines.filter((line) => /\(default [^)]*\).*\(default /.test(line)), []);
  assert.match(lines.find((line) => line.includes('--leader-elect-lease-duration'))!, /renewal before taking the lease over\. \(default 15s\)$/);
});
