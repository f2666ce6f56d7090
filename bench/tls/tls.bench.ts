// bench/tls: what node itself spends to write to one of many loopback connections, TLS and plain
// TCP, on this machine. It is the floor under bench/api's fan-out, where each hand-over to a
// watcher is one such write: with 1,000 watchers every 40 ms that is 25,000 writes a second.
// A child process holds the connections and reads everything; this process writes the same
// buffer to each in turn and reports its own CPU time per write. Prints JSON.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { generateSelfSignedCert, secureServingOptions } from '@plat/serving';
import { cpuSeconds } from '../proc.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
/** A run of 8 watch events of ~450 bytes (bench/api's objects at 200 writes/s, 40 ms apart), and one event. */
const SIZES = (process.env.BENCH_SIZES ?? '3600,450').split(',').map(Number);

interface Figures {
  transport: 'tls' | 'tcp';
  bytes: number;
  writes: number;
  writesPerSecond: number;
  /** This process's CPU time (all threads, user + system) per write. */
  cpuMicrosPerWrite: number;
  userMicrosPerWrite: number;
  systemMicrosPerWrite: number;
  /** The reading process's CPU time per write: the other half of a hand-over's cost to the machine. */
  readerCpuMicrosPerWrite: number;
}

async function measure(transport: 'tls' | 'tcp', bytes: number, cert: { cert: string; key: string }): Promise<Figures> {
  const sockets: Socket[] = [];
  const onConnection = (socket: Socket): void => {
    socket.setNoDelay(true);
    sockets.push(socket);
  };
  const server: Server =
    transport === 'tls' ? createTlsServer(secureServingOptions(cert), onConnection) : createTcpServer(onConnection);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const readers = fork(fileURLToPath(new URL('./readers.js', import.meta.url)), [transport, String(port), String(CONNECTIONS)]);
  let readersExit: string | undefined;
  readers.once('exit', (code, signal) => (readersExit = `${code ?? signal}`));
  while (sockets.length < CONNECTIONS) {
    if (readersExit !== undefined) throw new Error(`bench/tls: the readers' process ended (${readersExit}) with ${sockets.length} of ${CONNECTIONS} connections open`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  const buffer = Buffer.alloc(bytes, 'x');
  let writes = 0;
  const readerCpuBefore = await cpuSeconds(readers.pid!);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  // Slices of 100 per turn of the event loop, as the watch cache hands over; a connection whose
  // reader is behind is skipped, as the cache would not write to it either.
  await new Promise<void>((resolve) => {
    let next = 0;
    const slice = (): void => {
      for (let i = 0; i < 100; i++) {
        const socket = sockets[next]!;
        next = (next + 1) % sockets.length;
        if (socket.writableNeedDrain) continue;
        socket.write(buffer);
        writes++;
      }
      if (performance.now() < deadline) setImmediate(slice);
      else resolve();
    };
    slice();
  });
  const elapsedS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  // What was written is read by now or soon: a moment for the reader to finish.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const readerCpu = ((await cpuSeconds(readers.pid!)) - readerCpuBefore) * 1e6;

  readers.kill();
  for (const socket of sockets) socket.destroy();
  server.close();
  const perWrite = (micros: number): number => Math.round((micros / writes) * 100) / 100;
  return {
    transport,
    bytes,
    writes,
    writesPerSecond: Math.round(writes / elapsedS),
    cpuMicrosPerWrite: perWrite(cpu.user + cpu.system),
    userMicrosPerWrite: perWrite(cpu.user),
    systemMicrosPerWrite: perWrite(cpu.system),
    readerCpuMicrosPerWrite: perWrite(readerCpu),
  };
}

const cert = await generateSelfSignedCert({ bindAddress: '127.0.0.1' });
const results: Figures[] = [];
for (const bytes of SIZES) for (const transport of ['tls', 'tcp'] as const) results.push(await measure(transport, bytes, cert));
console.log(JSON.stringify({ benchmark: 'tls', connections: CONNECTIONS, seconds: SECONDS, results }, null, 2));
