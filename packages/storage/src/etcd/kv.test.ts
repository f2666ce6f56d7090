// Which etcd versions the watch cache trusts with progress requests: those upstream's
// RequestWatchProgress check accepts (3.4.31+, 3.5.13+), after the fixes of etcd#15220 (3.4.25,
// 3.5.8: the answer waited for pending events) and etcd#17507 (3.4.31, 3.5.13: always answered).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressRequestsSafeIn } from './kv.js';

const table: [string, boolean][] = [
  ['3.3.27', false],
  ['3.4.0', false],
  ['3.4.23', false],
  ['3.4.25', false],
  ['3.4.30', false],
  ['3.4.31', true],
  ['3.4.37', true],
  ['3.5.0', false],
  ['3.5.8', false],
  ['3.5.12', false],
  ['3.5.13', true],
  ['3.5.21', true],
  ['3.6.0', true],
  ['3.6.4', true],
  ['4.0.0', true],
  ['2.3.8', false],
  ['', false],
  ['not a version', false],
];

test('progressRequestsSafeIn: the versions upstream trusts with progress requests', () => {
  for (const [version, safe] of table) assert.equal(progressRequestsSafeIn(version), safe, version);
});
