// A real Prometheus (Debian's package) scrapes three replicas and reads apiserver_request_total back
// through its query API. Skipped when prometheus is not installed (`make test-deps` installs it).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';

const installed = spawnSync('prometheus', ['--version']).status === 0;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface QueryResult {
  status: string;
  data: { result: { metric: Record<string, string>; value: [number, string] }[] };
}

describe('Prometheus scrapes three replicas', { skip: !installed && 'prometheus is not installed (Debian package prometheus)' }, () => {
  const replicas: ApiserverProcess[] = [];
  let prometheus: ChildProcess | undefined;
  let output = '';
  let dir: string;
  let port: number;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plat-e2e-prometheus-'));
    replicas.push(...(await Promise.all([0, 1, 2].map(() => startApiserver(['--storage-backend=memory', '--authorization-mode=AlwaysAllow'])))));
    await writeFile(join(dir, 'ca.crt'), replicas[0]!.ca);
    const config = [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: plat-apiserver',
      '    scheme: https',
      // Each replica made its own self-signed CA: the test trusts the connection, not the chain.
      '    tls_config: { insecure_skip_verify: true }',
      '    static_configs:',
      `      - targets: [${replicas.map((replica) => `'127.0.0.1:${replica.port}'`).join(', ')}]`,
    ].join('\n');
    await writeFile(join(dir, 'prometheus.yml'), `${config}\n`);
    port = await freePort();
    prometheus = spawn(
      'prometheus',
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    prometheus.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  });
  after(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      process.kill(prometheus.pid!, 'SIGTERM');
      await exited;
    }
    await Promise.all(replicas.map((replica) => replica.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  const query = async (expression: string): Promise<QueryResult> => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(expression)}`);
    return (await res.json()) as QueryResult;
  };

  it('reads apiserver_request_total of every replica back through the query API', async () => {
    for (const replica of replicas) {
      for (let i = 0; i < 3; i++) assert.equal((await replica.request('/api/v1/namespaces')).status, 200);
    }
    try {
      await eventually(
        'three targets up with LIST counts',
        async () => {
          const result = await query('sum by (instance) (apiserver_request_total{verb="LIST",resource="namespaces",code="200"})');
          return result.status === 'success' && result.data.result.length === 3 && result.data.result.every((r) => Number(r.value[1]) >= 3);
        },
        30_000,
      );
    } catch (error) {
      throw new Error(`${String(error)}\n${output.slice(-2000)}`);
    }
    const up = await query('up{job="plat-apiserver"}');
    assert.deepEqual(up.data.result.map((r) => r.value[1]), ['1', '1', '1']);
  });
});
