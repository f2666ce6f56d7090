// etcd's key-value records as the KV contract's KeyValue.
import type { IKeyValue } from 'etcd3';
import type { KeyValue } from '../kv.js';

export function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString(),
    value: kv.value.toString(),
    modRevision: Number(kv.mod_revision),
    createRevision: Number(kv.create_revision),
  };
}
