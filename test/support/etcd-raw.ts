// What etcd itself holds at a key, read past the apiserver: for checking what is stored (encryption at rest).
import { EtcdChannel, decodeRangeResponse, encodeRangeRequest } from '@plat/storage/etcd';

export interface EtcdReader {
  /** The value's bytes, or undefined when the key is absent. */
  value(key: string): Promise<Buffer | undefined>;
  close(): void;
}

export function etcdReader(endpoint: string): EtcdReader {
  const channel = new EtcdChannel({ endpoints: [endpoint], timeoutMs: 5000 });
  return {
    async value(key) {
      const range = decodeRangeResponse(await channel.call('/etcdserverpb.KV/Range', encodeRangeRequest({ key: Buffer.from(key) })));
      const kv = range.kvs[0];
      return kv && Buffer.from(kv.value);
    },
    close: () => channel.close(),
  };
}
