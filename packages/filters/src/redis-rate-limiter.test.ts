// RedisRateLimiter against a scripted Redis (the RESP protocol over loopback): the decision is
// Redis' while it answers; a call it leaves unanswered past the timeout, or a connection it drops,
// is decided by this replica's own buckets with the configured rate; and it goes back to Redis
// once Redis answers again.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { pino } from 'pino';
import { RedisRateLimiter } from './limits.js';
import { ServerMetrics } from '@plat/metrics';

/** A command as the client sent it: its name in upper case, then its arguments. */
type Command = string[];

/** Just enough of Redis for ioredis: the ready check's INFO, +OK to anything else, scripted EVALSHA. */
class ScriptedRedis {
  readonly commands: Command[] = [];
  /** The reply to the token-bucket script. */
  scriptReply: [number, string] = [1, '0'];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** While paused (a Redis that hangs: a long fork, a frozen process), replies wait here in order. */
  private held: (() => void)[] | undefined;
  port = 0;

  pause(): void {
    this.held ??= [];
  }

  /** Sends the replies held while paused, in order, as a Redis that comes back would. */
  resume(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const send of held) send();
  }

  async start(port = this.port): Promise<void> {
    const server = createServer((socket) => this.serve(socket));
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  /** Closes the listener and every connection: Redis gone. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  scriptCalls(): Command[] {
    return this.commands.filter((command) => command[0] === 'EVALSHA' || command[0] === 'EVAL');
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let parsed = parseCommand(buffer); parsed; parsed = parseCommand(buffer)) {
        buffer = buffer.subarray(parsed.length);
        this.commands.push(parsed.command);
        const reply = this.reply(parsed.command);
        if (this.held) this.held.push(() => socket.write(reply));
        else socket.write(reply);
      }
    });
  }

  private reply(command: Command): string {
    switch (command[0]) {
      case 'INFO': {
        const info = '# Server\r\nredis_version:7.0.0\r\n# Persistence\r\nloading:0\r\n';
        return `$${Buffer.byteLength(info)}\r\n${info}\r\n`;
      }
      case 'EVALSHA':
      case 'EVAL': {
        const [allowed, wait] = this.scriptReply;
        return `*2\r\n:${allowed}\r\n$${wait.length}\r\n${wait}\r\n`;
      }
      default:
        return '+OK\r\n';
    }
  }
}

/** One RESP array of bulk strings at the start of `buffer`, or undefined while it is incomplete. */
function parseCommand(buffer: Buffer): { command: Command; length: number } | undefined {
  const line = (from: number): { text: string; next: number } | undefined => {
    const end = buffer.indexOf('\r\n', from);
    return end === -1 ? undefined : { text: buffer.toString('latin1', from, end), next: end + 2 };
  };
  const head = line(0);
  if (!head) return undefined;
  assert.equal(head.text[0], '*', `a command is an array: ${head.text}`);
  const command: Command = [];
  let at = head.next;
  for (let i = 0; i < Number(head.text.slice(1)); i++) {
    const size = line(at);
    if (!size) return undefined;
    const length = Number(size.text.slice(1));
    if (buffer.length < size.next + length + 2) return undefined;
    command.push(buffer.toString('utf8', size.next, size.next + length));
    at = size.next + length + 2;
  }
  command[0] = command[0]!.toUpperCase();
  return { command, length: at };
}

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function setUp(options: { qps: number; burst: number }) {
  const redis = new ScriptedRedis();
  await redis.start();
  const metrics = new ServerMetrics();
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const limiter = new RedisRateLimiter({ ...options, redisUrl: `redis://127.0.0.1:${redis.port}` }, logger, metrics);
  const gauge = async (): Promise<number> => (await metrics.rateLimitRedisAvailable.get()).values[0]?.value ?? NaN;
  const fallbacks = async (): Promise<number> => (await metrics.rateLimitFallbacks.get()).values[0]?.value ?? 0;
  await until('the limiter on Redis', async () => (await gauge()) === 1);
  return {
    redis,
    limiter,
    logs,
    gauge,
    fallbacks,
    async close() {
      await limiter.close();
      await redis.stop();
    },
  };
}

describe('RedisRateLimiter', () => {
  it('while Redis answers, its decision stands: the script run on the user\u2019s key with the configured qps and burst', async () => {
    const t = await setUp({ qps: 2, burst: 5 });
    try {
      t.redis.scriptReply = [0, '1.25'];
      assert.deepEqual(await t.limiter.take('alice'), { allowed: false, retryAfterSeconds: 1.25 });
      t.redis.scriptReply = [1, '0'];
      assert.deepEqual(await t.limiter.take('bob'), { allowed: true, retryAfterSeconds: 0 });
      const calls = t.redis.scriptCalls();
      assert.equal(calls.length, 2);
      // EVALSHA sha 1 key qps burst (or EVAL script 1 key qps burst).
      assert.deepEqual(calls.map((call) => call.slice(2)), [['1', 'plat:ratelimit:alice', '2', '5'], ['1', 'plat:ratelimit:bob', '2', '5']]);
      assert.equal(await t.fallbacks(), 0);
    } finally {
      await t.close();
    }
  });

  it('a call Redis leaves unanswered is decided locally after the 250 ms timeout, and the next calls go to Redis again once it answers', async () => {
    const t = await setUp({ qps: 0.01, burst: 2 });
    try {
      t.redis.pause();
      const started = performance.now();
      // A fresh local bucket: the burst is there.
      assert.deepEqual(await t.limiter.take('alice'), { allowed: true, retryAfterSeconds: 0 });
      const waited = performance.now() - started;
      assert.ok(waited >= 240 && waited < 2000, `decided after ${waited} ms`);
      assert.equal(await t.fallbacks(), 1);
      assert.equal(await t.gauge(), 0);
      assert.ok(t.logs.some((line) => line.includes('Redis unreachable, falling back')), t.logs.join(''));
      // Redis answers again, the late reply first: the decisions are its own again.
      t.redis.scriptReply = [0, '7'];
      t.redis.resume();
      await until('a decision by Redis again', async () => (await t.limiter.take('alice')).retryAfterSeconds === 7);
      assert.equal(await t.gauge(), 1);
    } finally {
      await t.close();
    }
  });

  it('with Redis gone, this replica\u2019s buckets give the configured burst and rate; when Redis returns, it decides again', async () => {
    const qps = 0.01;
    const burst = 3;
    const t = await setUp({ qps, burst });
    try {
      await t.redis.stop();
      await until('the fallback', async () => (await t.gauge()) === 0);
      const decisions = [];
      for (let i = 0; i < burst + 1; i++) decisions.push(await t.limiter.take('alice'));
      assert.deepEqual(decisions.map((d) => d.allowed), [true, true, true, false], 'the burst, then none');
      // One token every 1 / qps = 100 s: the wait says the local rate is the configured one.
      const wait = decisions[burst]!.retryAfterSeconds;
      assert.ok(wait > 90 && wait <= 100, `retry after ${wait} s`);
      assert.equal((await t.limiter.take('bob')).allowed, true, 'each user has a bucket of their own');
      assert.equal(await t.fallbacks(), burst + 2);
      const before = t.redis.scriptCalls().length;
      await t.redis.start();
      t.redis.scriptReply = [1, '0'];
      await until('Redis in use again', async () => (await t.gauge()) === 1);
      // Alice's local bucket is empty; Redis says yes: the decision is Redis'.
      assert.deepEqual(await t.limiter.take('alice'), { allowed: true, retryAfterSeconds: 0 });
      assert.equal(t.redis.scriptCalls().length, before + 1);
      assert.equal(await t.fallbacks(), burst + 2);
    } finally {
      await t.close();
    }
  });
});
