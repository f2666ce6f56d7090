// kubectl speaks HTTP/2 to the API server (ALPN h2, as to kube-apiserver): every verb and its
// watches are streams of HTTP/2 connections; with HTTP/2 turned off in it (DISABLE_HTTP2), HTTP/1.1 serves alike.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminTokenFile, startApiserver, type ApiserverProcess } from './support/apiserver-process.js';
import { writeKubeconfig, kubectlIn } from './support/kubeconfig.js';

interface RequestLine {
  msg: string;
  uri?: string;
  verb?: string;
  userAgent?: string;
  protocol?: string;
}

describe('kubectl over HTTP/2', () => {
  let server: ApiserverProcess;
  let tokens: Awaited<ReturnType<typeof adminTokenFile>>;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  let workDir: string;
  const kubectl = async (env: Record<string, string>, ...args: string[]): Promise<string> => {
    const { stdout } = await kubectlIn(kubeconfig.path, workDir, args, env);
    return stdout;
  };
  /**
   * Waits until the request log has lines that `done` accepts: each line is written when its
   * response closes, and reaches this process through the replica's output a little later.
   */
  const logged = async (done: (lines: RequestLine[]) => boolean): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!done(kubectlRequests())) {
      if (Date.now() > deadline) assert.fail(`the request log lacks lines: ${JSON.stringify(kubectlRequests())}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** The request log's lines of kubectl's requests, by verb, with their protocol. */
  const kubectlRequests = (): RequestLine[] =>
    server
      .logs()
      .split('\n')
      .filter((line) => line.includes('"msg":"HTTP"'))
      .map((line) => JSON.parse(line) as RequestLine)
      .filter((line) => line.userAgent?.startsWith('kubectl'));

  before(async () => {
    tokens = await adminTokenFile();
    // The request log (debug) says which protocol each request came over.
    server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`, '--api-domain=k8s.io', '--log-level=debug']);
    kubeconfig = await writeKubeconfig(server, tokens.token);
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-kubectl-h2-'));
  });
  after(async () => {
    await server.stop();
    await kubeconfig.cleanup();
    await tokens.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('every verb, and a watch, over HTTP/2', async () => {
    await kubectl({}, 'create', 'namespace', 'h2');
    await kubectl({}, '-n', 'h2', 'create', 'configmap', 'c', '--from-literal=a=b');
    await kubectl({}, '-n', 'h2', 'label', 'configmap', 'c', 'x=y');
    await kubectl({}, '-n', 'h2', 'get', 'configmaps', '-o', 'name');
    // A watch that lasts a second (--request-timeout ends it, as the server's timeoutSeconds would).
    await kubectl({}, '-n', 'h2', 'get', 'configmaps', '--watch', '--request-timeout=1s').catch(() => '');
    await kubectl({}, '-n', 'h2', 'delete', 'configmap', 'c');
    const expected = ['create', 'patch', 'list', 'watch', 'delete'];
    await logged((lines) => expected.every((verb) => lines.some((line) => line.verb === verb)));
    const requests = kubectlRequests();
    const protocols = new Set(requests.map((line) => line.protocol));
    assert.deepEqual([...protocols], ['HTTP/2.0']);
  });

  it('with HTTP/2 turned off in kubectl (DISABLE_HTTP2, as client-go reads it), HTTP/1.1 serves alike', async () => {
    const before = kubectlRequests().length;
    await kubectl({ DISABLE_HTTP2: 'true' }, 'create', 'namespace', 'h1');
    assert.match(await kubectl({ DISABLE_HTTP2: 'true' }, 'get', 'namespace', 'h1', '-o', 'name'), /namespace\/h1/);
    // This case's requests (the first case's watch may be logged only now, when its stream closed).
    const ofThisCase = (lines: RequestLine[]): RequestLine[] => lines.slice(before).filter((line) => !line.uri?.includes('/namespaces/h2/'));
    await logged((lines) => ofThisCase(lines).some((line) => line.verb === 'get' && line.uri?.startsWith('/api/v1/namespaces/h1')));
    const requests = ofThisCase(kubectlRequests());
    assert.ok(requests.length >= 2);
    assert.deepEqual([...new Set(requests.map((line) => line.protocol))], ['HTTP/1.1'], JSON.stringify(requests));
  });
});
