// A webhook on loopback for the webhook tests: what it was sent, and an answer the test chooses.
import { createServer as createHttpsServer } from 'node:https';
import { testCert } from './certificate.js';

export interface TestWebhook {
  url: string;
  /** The CA of its certificate (PEM). */
  ca: string;
  /** Every request body it received, decoded, with its headers. */
  received: { body: Record<string, unknown>; headers: Record<string, string | string[] | undefined> }[];
  /** Decides each answer: its status code and body (default 200 and the JSON of `body`). */
  answer: (review: Record<string, unknown>) => { status?: number; body: unknown; headers?: Record<string, string> };
  close(): Promise<void>;
}

export async function startTestWebhook(answer: TestWebhook['answer']): Promise<TestWebhook> {
  const { cert, key, ca } = await testCert();
  const webhook: TestWebhook = {
    url: '',
    ca,
    received: [],
    answer,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createHttpsServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      webhook.received.push({ body, headers: req.headers });
      const reply = webhook.answer(body);
      res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', ...reply.headers });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  webhook.url = `https://127.0.0.1:${(server.address() as { port: number }).port}/review`;
  return webhook;
}
