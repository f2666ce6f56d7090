import { test } from 'node:test';
import assert from 'node:assert/strict';
import { managerFromUserAgent } from './user-agent.js';

const cases: [string | undefined, string][] = [
  ['kubectl/v1.28.0 (linux/amd64) kubernetes/abc', 'kubectl'],
  ['kubectl/v1.28.0 (linux/amd64) plat/abc', 'kubectl'],
  ['kube-controller-manager/v1.28.0 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:deployment-controller', 'kube-controller-manager'],
  ['curl', 'curl'],
  ['', ''],
  [undefined, ''],
  ['my\tagent\u0000/1', 'myagent'],
  ['x'.repeat(200) + '/1', 'x'.repeat(128)],
  ['é'.repeat(100), 'é'.repeat(64)],
];

for (const [agent, want] of cases) {
  test(`managerFromUserAgent(${JSON.stringify(agent)?.slice(0, 40)})`, () => {
    assert.equal(managerFromUserAgent(agent), want);
  });
}
