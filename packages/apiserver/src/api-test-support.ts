// Helpers for in-process tests of the resource API (not exported): a server over memory storage
// with the built-in kinds, and requests with a body.
import { request as httpsRequest } from 'node:https';
import { builtinDefinitions, builtinSubresourceDefinitions } from '@plat/api';
import { createStorage } from '@plat/storage';
import type { ServerOptions, ApiOptions } from './server.js';
import { startServer, testCert, type Response, type TestServer } from './test-support.js';

export interface ApiTestServer extends TestServer {
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

export async function startApiServer(options: Partial<ServerOptions> = {}, api: Partial<ApiOptions> = {}): Promise<ApiTestServer> {
  const started = await startServer({
    storage: createStorage({ backend: 'memory' }),
    ...options,
    api: { definitions: builtinDefinitions, subresourceDefinitions: builtinSubresourceDefinitions, domain: 'plat.io', ...api },
  });
  const { ca } = await testCert();
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      // A string or bytes are sent as they are (raw JSON, YAML, Protobuf); anything else as JSON.
      const text = body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: started.port,
          path,
          method,
          ca,
          agent: false,
          // Node sends no Content-Length of its own for a DELETE body, which the server then never reads.
          headers: { ...(text !== undefined && { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) }), ...headers },
        },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (data += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  return { ...started, send };
}
