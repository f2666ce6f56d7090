// The audit log of a real replica: every acknowledged request has its line after SIGTERM, and an
// open watch gets its ResponseComplete line when shutdown ends it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminTokenFile, startApiserver } from './support/apiserver-process.js';

interface Event {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username?: string };
  objectRef?: { resource?: string; name?: string };
  responseStatus: { code: number };
}

test('audit log: no line lost on graceful shutdown, watches logged when they end', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-audit-'));
  const tokens = await adminTokenFile();
  const path = join(dir, 'audit.log');
  const server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`, `--audit-log-path=${path}`]);
  try {
    const token = tokens.token;
    const watch = await server.watch('/api/v1/namespaces?watch=1', { token });
    assert.equal(watch.status, 200);
    const ids = new Set<string>();
    for (let batch = 0; batch < 4; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => server.request('/api/v1/namespaces?limit=1', { token, headers: { 'Audit-ID': `req-${batch}-${i}` } })),
      );
      for (const res of responses) {
        assert.equal(res.status, 200);
        ids.add(String(res.headers['audit-id']));
      }
    }
    assert.equal(await server.stop(), 0);
    const events = (await readFile(path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Event);
    const logged = new Set(events.map((event) => event.auditID));
    assert.deepEqual([...ids].filter((id) => !logged.has(id)), [], 'every answered request is in the log');
    const watches = events.filter((event) => event.verb === 'watch');
    assert.equal(watches.length, 1);
    assert.equal(watches[0]!.stage, 'ResponseComplete');
    assert.equal(watches[0]!.user.username, 'admin');
    assert.deepEqual(watches[0]!.objectRef, { resource: 'namespaces', apiGroup: '', apiVersion: 'v1' });
  } finally {
    await server.stop();
    await tokens.cleanup();
    await rm(dir, { recursive: true, force: true });
  }
});
