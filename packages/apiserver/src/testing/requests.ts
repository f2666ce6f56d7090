// HTTPS requests to a test server on 127.0.0.1: the one request helper of the in-process tests.
import { request as httpsRequest, type Agent } from 'node:https';

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A string or bytes are sent as they are (raw JSON, YAML, Protobuf); anything else as JSON. */
  body?: unknown;
  /** false: a new connection; an agent: its connections; absent: node's global agent. */
  agent?: Agent | false;
  /** The client certificate and key (PEM). */
  cert?: { cert: string; key: string };
}

/** One request to `port` on 127.0.0.1, trusting `ca`; the body as text. */
export function requestTo(port: number, ca: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const { body } = options;
  const text = body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        ca,
        ...(options.agent !== undefined && { agent: options.agent }),
        ...(options.cert && { cert: options.cert.cert, key: options.cert.key }),
        // Node sends no Content-Length of its own for a DELETE body, which the server then never reads.
        headers: {
          ...(text !== undefined && { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) }),
          ...options.headers,
        },
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
}
