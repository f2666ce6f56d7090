// HTTP/1.1 keep-alive against a replica: clients that reuse their connections (client-go over
// HTTP/1.1, node's agents) lose no request. Node's parser dropped about one create in ten of large
// objects (HPE_PAUSED) when the next request came before the last response had drained.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

describe('HTTP/1.1 keep-alive', () => {
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let server: ApiserverProcess;
  let dataDir: string;
  // On SQLite, whose writes take long enough for the race to show (on the memory backend it did not).
  before(async () => {
    tokens = await adminTokenFile();
    dataDir = await mkdtemp(join(tmpdir(), 'plat-e2e-keep-alive-'));
    server = await startApiserver(['--storage-backend=sqlite', `--storage-dir=${join(dataDir, 'data')}`, `--token-auth-file=${tokens.file}`]);
  });
  after(async () => {
    await server?.stop();
    await tokens?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('300 creates of 60 KB objects and 100 gets on one connection: every one answered', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: unknown): Promise<number> =>
      new Promise((resolve, reject) => {
        const text = body === undefined ? undefined : JSON.stringify(body);
        const req = request(
          {
            host: '127.0.0.1',
            port: server.port,
            path,
            method,
            ca: server.ca,
            agent,
            headers: { authorization: `Bearer ${tokens.token}`, ...(text && { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(text);
      });
    const configMaps = '/api/v1/namespaces/default/configmaps';
    const data = { blob: 'y'.repeat(60 * 1024) };
    const failures: string[] = [];
    for (let i = 0; i < 300; i++) {
      const status = await send('POST', configMaps, { metadata: { name: `c${i}` }, data }).catch((error: Error) => error.message);
      if (status !== 201) failures.push(`create c${i}: ${status}`);
    }
    for (let i = 0; i < 300; i += 3) {
      const status = await send('GET', `${configMaps}/c${i}`).catch((error: Error) => error.message);
      if (status !== 200) failures.push(`get c${i}: ${status}`);
    }
    agent.destroy();
    assert.deepEqual(failures, []);
  });
});
