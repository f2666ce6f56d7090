// bench/tls's other end, in its own process: opens the connections and reads everything they bring.
import { connect as tcpConnect, type OnReadOpts } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

const [transport, port, count] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
// One buffer for every read: what arrives is dropped unread.
const onread: OnReadOpts = { buffer: Buffer.alloc(64 * 1024), callback: () => true };
// tls.connect takes net's onread (documented; @types/node leaves it out of ConnectionOptions).
const tlsOptions: ConnectionOptions & { onread: OnReadOpts } = { host: '127.0.0.1', port, rejectUnauthorized: false, onread };
for (let i = 0; i < count; i++) {
  const socket =
    transport === 'tls'
      ? tlsConnect(tlsOptions)
      : tcpConnect({ host: '127.0.0.1', port, onread });
  socket.on('error', (error) => {
    console.error(`bench/tls reader: ${error.message}`);
    process.exit(1);
  });
}
