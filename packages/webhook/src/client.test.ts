import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebhookClient, type WebhookBackoff } from './client.js';
import { startLoopbackWebhook, type LoopbackWebhook } from './test-support.js';

let webhook: LoopbackWebhook;
before(async () => {
  webhook = await startLoopbackWebhook({ dnsNames: ['localhost'] });
});
after(() => webhook.close());

const fastRetries: WebhookBackoff = { initialMs: 1, factor: 1.5, jitter: 0.2, steps: 5 };
const client = (options: { backoff?: WebhookBackoff; timeoutMs?: number } = {}): WebhookClient =>
  new WebhookClient({ url: `https://127.0.0.1:${webhook.port}/review`, ca: webhook.ca, verifyServer: true }, options);

test('webhook client: posts the review as JSON and returns the answer', async () => {
  webhook.received = [];
  webhook.answer = () => ({ body: { kind: 'Review', answer: 42 } });
  assert.deepEqual(await client().post({ kind: 'Review' }), { kind: 'Review', answer: 42 });
  const [sent] = webhook.received;
  assert.equal(sent?.path, '/review');
  assert.deepEqual(sent?.body, { kind: 'Review' });
  assert.equal(sent?.headers['content-type'], 'application/json');
  assert.equal(sent?.headers['user-agent'], 'plat-apiserver');
});

// Which failures are retried, with a backoff, and how many attempts are made.
const retries: { name: string; backoff?: WebhookBackoff; status: number; headers?: Record<string, string>; attempts: number; want: RegExp }[] = [
  { name: 'without a backoff, one attempt', status: 500, attempts: 1, want: /status code 500|an error on the server/ },
  { name: '500 with a backoff', backoff: fastRetries, status: 500, attempts: 5, want: /an error on the server/ },
  { name: '504', backoff: fastRetries, status: 504, attempts: 5, want: /status code 504/ },
  { name: '429', backoff: fastRetries, status: 429, attempts: 5, want: /status code 429/ },
  { name: 'Retry-After', backoff: fastRetries, status: 503, headers: { 'Retry-After': '1' }, attempts: 5, want: /status code 503/ },
  { name: '503 alone', backoff: fastRetries, status: 503, attempts: 1, want: /status code 503/ },
  { name: '400', backoff: fastRetries, status: 400, attempts: 1, want: /status code 400/ },
];

for (const { name, backoff, status, headers, attempts, want } of retries) {
  test(`webhook client retries: ${name}`, async () => {
    webhook.received = [];
    webhook.answer = () => ({ status, body: { oops: true }, ...(headers && { headers }) });
    await assert.rejects(client({ ...(backoff && { backoff }) }).post({}), want);
    assert.equal(webhook.received.length, attempts);
  });
}

test('webhook client: a call with a timeout tells the webhook (?timeout=), and fails past it in Go\'s words', async () => {
  webhook.received = [];
  webhook.answer = () => ({ body: {}, delayMs: 2_000 });
  const url = `https://127.0.0.1:${webhook.port}/review?timeout=200ms`;
  const started = Date.now();
  await assert.rejects(client().post({}, { timeoutMs: 200 }), { message: `Post "${url}": context deadline exceeded` });
  assert.ok(Date.now() - started < 1_500, 'failed at the deadline, not at the answer');
  assert.equal(webhook.received[0]?.path, '/review?timeout=200ms');

  webhook.answer = () => ({ body: { ok: true } });
  await client().post({}, { timeoutMs: 10_000 });
  assert.equal(webhook.received[1]?.path, '/review?timeout=10s', 'a Go duration');
});

test('webhook client: the client\'s own timeout bounds each attempt, and is not sent', async () => {
  webhook.received = [];
  webhook.answer = () => ({ body: {}, delayMs: 2_000 });
  await assert.rejects(client({ timeoutMs: 100 }).post({}), { message: `Post "https://127.0.0.1:${webhook.port}/review": context deadline exceeded (Client.Timeout exceeded after 0.1s)` });
  assert.equal(webhook.received[0]?.path, '/review');
});

test('webhook client: retries stop at the call\'s deadline, with the last answer\'s error', async () => {
  webhook.received = [];
  webhook.answer = () => ({ status: 500, body: 'down' });
  // Waits of 1 s then 3 s within a 3 s deadline: a second attempt at about 1 s, the third past the
  // deadline, with seconds to spare either way on a busy machine.
  const slowRetries: WebhookBackoff = { initialMs: 1_000, factor: 3, jitter: 0, steps: 5 };
  await assert.rejects(client({ backoff: slowRetries }).post({}, { timeoutMs: 3_000 }), /an error on the server \("down"\)/);
  assert.equal(webhook.received.length, 2, 'attempts at 0 and 1 s; the third would come after the deadline');
});
