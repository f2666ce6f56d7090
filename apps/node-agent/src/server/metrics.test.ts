import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { AgentMetrics } from './metrics.js';

test('agent metrics: each HELP carries its stability class; promtool check metrics passes', async () => {
  const metrics = new AgentMetrics('node-1');
  metrics.leaseRenewed();
  const text = await metrics.registry.metrics();
  assert.match(text, /^# HELP kubelet_node_name \[ALPHA\] The node's name\. The count is always 1\.$/m);
  assert.match(text, /^kubelet_node_name\{node="node-1"\} 1$/m);
  assert.match(text, /^# HELP plat_agent_node_lease_renewals_total \[ALPHA\] /m);
  assert.match(text, /^plat_agent_node_lease_renewals_total 1$/m);
  assert.match(text, /^registered_metrics_total\{stability_level="ALPHA",deprecated_version=""\} 3$/m);
  if (spawnSync('promtool', ['--version']).status === 0) {
    const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  }
});
