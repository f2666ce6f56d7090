// The etcd backend: KVStorage over EtcdKV, with the shared compactor.
import { KVStorage } from '../kv-storage.js';
import { EtcdKV } from './kv.js';
import { Compactor } from './compactor.js';
import { EtcdChannel, type EndpointEvent } from './channel.js';
import type { KeepaliveOptions, TlsCredentials } from './h2/session.js';
import type { ResourceTransformers } from '../value/resource-transformers.js';

export interface EtcdStorageOptions {
  /** Client URLs: http://host:port, or https://host:port with `tls`. */
  hosts: string[];
  /** For https endpoints: the CA to trust (default: the system's), and a client certificate and key. */
  tls?: TlsCredentials;
  prefix: string;
  /** 0: this replica never compacts. */
  compactionIntervalMs: number;
  onBackgroundError: (error: unknown, what: string) => void;
  onCompacted?: (revision: number) => void;
  /** A member failed, or answers again. */
  onEndpointEvent?: (event: EndpointEvent) => void;
  /** How long checkHealth waits for some member; default 2 s. */
  healthTimeoutMs?: number;
  /** How long one range or transaction may take, failover included; default 30 s. */
  requestTimeoutMs?: number;
  /** The connections' liveness checks; tests shorten them. */
  keepalive?: KeepaliveOptions;
  connectTimeoutMs?: number;
  /** Encryption at rest per resource. */
  transformers?: ResourceTransformers;
}

/**
 * Upstream's storage requests run under the request's own deadline (60 s); a replica that cannot
 * reach a serving member for this long answers with an error rather than hold the request.
 */
const REQUEST_TIMEOUT_MS = 30_000;

export class EtcdStorage extends KVStorage {
  private readonly compactor: Compactor | undefined;
  private readonly etcd: EtcdKV;

  constructor(options: EtcdStorageOptions) {
    const channel = new EtcdChannel({
      endpoints: options.hosts.map((host) => (/^[a-z]+:\/\//.test(host) ? host : `http://${host}`)),
      timeoutMs: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      ...(options.tls && { tls: options.tls }),
      ...(options.keepalive && { keepalive: options.keepalive }),
      ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.onEndpointEvent && { onEndpointEvent: options.onEndpointEvent }),
    });
    const kv = new EtcdKV(channel, options.healthTimeoutMs);
    super(kv, options.prefix.replace(/\/+$/, ''), options.transformers);
    this.etcd = kv;
    if (options.compactionIntervalMs > 0) {
      this.compactor = new Compactor(kv, {
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

  /** The etcd member this store talks to now. */
  get endpoint(): string {
    return this.etcd.channel.endpoint;
  }

  /** The member's etcd version and the revision (Maintenance.Status). */
  status(): Promise<{ version: string; revision: number }> {
    return this.etcd.status();
  }

  override async close(): Promise<void> {
    await this.compactor?.stop();
    await super.close();
  }
}
