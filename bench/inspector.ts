// What a benchmark asks of a node process started with --inspect: a garbage collection forced
// there, and its heap and memory figures after it, over the DevTools protocol (a WebSocket: the
// few frames this needs are written here, node 20 has no WebSocket client without a flag).
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';

export interface MemoryFigures {
  /** V8's heap in use (Runtime.getHeapUsage's usedSize), after the collection. */
  heapUsedBytes: number;
  /** process.memoryUsage() in the process, after the collection. */
  rssBytes: number;
  externalBytes: number;
  arrayBuffersBytes: number;
  /** v8.getHeapStatistics(): the heap's limit, and what V8 has reserved for it. */
  heapSizeLimitBytes: number;
  totalHeapSizeBytes: number;
}

/** The inspector's WebSocket URL, from the "Debugger listening on ws://..." line a process prints. */
export const inspectorUrl = (output: string): string | undefined => /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];

/** One DevTools session over a WebSocket. */
export class Inspector {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  private received = Buffer.alloc(0);

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('close', () => {
      for (const { reject } of this.waiting.values()) reject(new Error('the inspector closed'));
      this.waiting.clear();
    });
  }

  static connect(url: string): Promise<Inspector> {
    const { hostname, port, pathname } = new URL(url);
    return new Promise((resolve, reject) => {
      const req = request({
        host: hostname,
        port,
        path: pathname,
        headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') },
      });
      req.on('upgrade', (_res, socket) => resolve(new Inspector(socket)));
      req.on('response', (res) => reject(new Error(`the inspector answered ${res.statusCode}, not a WebSocket`)));
      req.on('error', reject);
      req.end();
    });
  }

  /** Sends a DevTools command and resolves with its result. */
  call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    const payload = Buffer.from(JSON.stringify({ id, method, params }));
    // A client's frame: FIN + text, masked, with a 7-bit, 16-bit or 64-bit length.
    const mask = randomBytes(4);
    const length = payload.length;
    const head = length < 126 ? Buffer.from([0x81, 0x80 | length]) : length < 65536 ? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 255]) : Buffer.concat([Buffer.from([0x81, 0x80 | 127]), bigEndian64(length)]);
    for (let i = 0; i < length; i++) payload[i]! ^= mask[i & 3]!;
    this.socket.write(Buffer.concat([head, mask, payload]));
    return new Promise<T>((resolve, reject) => this.waiting.set(id, { resolve: resolve as (result: unknown) => void, reject }));
  }

  /** Frames from the server are unmasked; messages here are single text frames. */
  private read(chunk: Buffer): void {
    this.received = Buffer.concat([this.received, chunk]);
    for (;;) {
      if (this.received.length < 2) return;
      let length = this.received[1]! & 127;
      let offset = 2;
      if (length === 126) {
        if (this.received.length < 4) return;
        length = this.received.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.received.length < 10) return;
        length = Number(this.received.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.received.length < offset + length) return;
      const opcode = this.received[0]! & 15;
      const payload = this.received.subarray(offset, offset + length);
      this.received = this.received.subarray(offset + length);
      if (opcode !== 1) continue;
      const message = JSON.parse(payload.toString()) as { id?: number; result?: unknown; error?: { message: string } };
      const waiter = message.id === undefined ? undefined : this.waiting.get(message.id);
      if (!waiter) continue;
      this.waiting.delete(message.id!);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    }
  }

  /** Forces a full garbage collection in the process, then reads its memory. */
  async memoryAfterCollection(): Promise<MemoryFigures> {
    await this.call('HeapProfiler.collectGarbage');
    // Twice: what the first collection's finalizers let go is collected by the second.
    await this.call('HeapProfiler.collectGarbage');
    const usage = await this.call<{ usedSize: number }>('Runtime.getHeapUsage');
    const evaluated = await this.call<{ result: { value: string } }>('Runtime.evaluate', {
      expression: "JSON.stringify({ memory: process.memoryUsage(), heap: process.getBuiltinModule('node:v8').getHeapStatistics() })",
      returnByValue: true,
    });
    const { memory, heap } = JSON.parse(evaluated.result.value) as { memory: NodeJS.MemoryUsage; heap: { heap_size_limit: number; total_heap_size: number } };
    return {
      heapUsedBytes: usage.usedSize,
      rssBytes: memory.rss,
      externalBytes: memory.external,
      arrayBuffersBytes: memory.arrayBuffers,
      heapSizeLimitBytes: heap.heap_size_limit,
      totalHeapSizeBytes: heap.total_heap_size,
    };
  }

  close(): void {
    this.socket.destroy();
  }
}

function bigEndian64(value: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(value));
  return buffer;
}
