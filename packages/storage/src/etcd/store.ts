// The etcd backend: the generic store over EtcdKV, with the shared compactor.
import { Etcd3, isRecoverableError } from 'etcd3';
import { ConsecutiveBreaker, circuitBreaker, handleWhen } from 'cockatiel';
import { KVStorage } from '../store.js';
import { EtcdKV } from './kv.js';
import { Compactor } from './compactor.js';
import { UnaryChannel } from './unary.js';

export interface EtcdStorageOptions {
  hosts: string[];
  prefix: string;
  /** 0: this replica never compacts. */
  compactionIntervalMs: number;
  onBackgroundError: (error: unknown, what: string) => void;
  onCompacted?: (revision: number) => void;
}

const DIAL_TIMEOUT_MS = 3000;
/**
 * How long one range or transaction may take, dialing included. Upstream's storage requests run
 * under the request's own deadline (60 s); a replica that cannot reach etcd for this long answers
 * with an error rather than hold the request.
 */
const REQUEST_TIMEOUT_MS = 30_000;
/** The client's default breaker refuses calls for 5 s after etcd fails; come back sooner. */
const HALF_OPEN_AFTER_MS = 1000;

export class EtcdStorage extends KVStorage {
  private readonly compactor: Compactor | undefined;
  private readonly etcd: EtcdKV;

  constructor(options: EtcdStorageOptions) {
    const client = new Etcd3({
      hosts: options.hosts,
      dialTimeout: DIAL_TIMEOUT_MS,
      // A watch catching up sends up to 1,000 revisions in one message, far above gRPC's 4 MiB default.
      grpcOptions: { 'grpc.max_receive_message_length': -1 },
      faultHandling: {
        host: () =>
          circuitBreaker(handleWhen(isRecoverableError), {
            halfOpenAfter: HALF_OPEN_AFTER_MS,
            breaker: new ConsecutiveBreaker(3),
          }),
      },
    });
    const unary = new UnaryChannel({
      endpoints: options.hosts.map((host) => (/^[a-z]+:\/\//.test(host) ? host : `http://${host}`)),
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    const kv = new EtcdKV(client, unary);
    super(kv, options.prefix.replace(/\/+$/, ''));
    this.etcd = kv;
    if (options.compactionIntervalMs > 0) {
      this.compactor = new Compactor(client, {
        intervalMs: options.compactionIntervalMs,
        onError: options.onBackgroundError,
        ...(options.onCompacted && { onCompacted: options.onCompacted }),
      });
    }
  }

  /** Watch streams opened so far, resumptions after a broken stream included. */
  get watchStreamsOpened(): number {
    return this.etcd.watchStreamsOpened;
  }

  /** The first revision asked of the most recently opened watch stream. */
  get lastWatchStreamStart(): number {
    return this.etcd.lastWatchStreamStart;
  }

  override async close(): Promise<void> {
    await this.compactor?.stop();
    await super.close();
  }
}
