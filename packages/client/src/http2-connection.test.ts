import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Client } from './client.js';
import { namespacesRef, serviceAccountsRef, startRelay, startTestApi, type TestApi } from './test-support.js';

describe('the client over HTTP/2', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });

  it('sends every request and watch as a stream of one connection', async () => {
    const relay = await startRelay(Number(new URL(api.config.server).port));
    const client = new Client({ ...api.config, server: `https://127.0.0.1:${relay.port}` });
    try {
      const namespaces = client.resource(namespacesRef);
      const watches = await Promise.all([0, 1, 2].map(() => client.resource(serviceAccountsRef).watch({ timeoutSeconds: 5 })));
      await Promise.all(Array.from({ length: 20 }, () => namespaces.list()));
      const stream = await client.rest.stream({ path: '/api/v1/namespaces', query: { watch: 1, timeoutSeconds: 1 } });
      assert.equal(stream.httpVersion, '2');
      stream.destroy();
      for (const watch of watches) watch.stop();
      assert.equal(relay.connections, 1);
    } finally {
      client.close();
      await relay.close();
    }
  });

  it('goes on over HTTP/1.1 with a server that speaks only that, or when told to', async () => {
    const plain = createHttpsServer({ cert: api.tls.cert, key: api.tls.key }, (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [], httpVersion: req.httpVersion }));
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const oldServer = new Client({ ...api.config, server: `https://127.0.0.1:${(plain.address() as AddressInfo).port}` });
    const told = new Client({ ...api.config, http2: false });
    try {
      for (const client of [oldServer, told]) {
        const stream = await client.rest.stream({ path: '/api/v1/namespaces', query: { watch: 1, timeoutSeconds: 1 } });
        assert.equal(stream.httpVersion, '1.1');
        stream.destroy();
      }
      assert.equal(((await oldServer.resource(namespacesRef).list()) as unknown as { httpVersion: string }).httpVersion, '1.1');
    } finally {
      oldServer.close();
      told.close();
      plain.close();
    }
  });
});
