// The flow of a request: its FlowSchema's name and its distinguisher, hashed as upstream's
// hashFlowID does (the first 8 bytes of sha256(fsName NUL distinguisher), little-endian), so
// that a flow lands in the same queues as it would upstream.
import { createHash } from 'node:crypto';

export function hashFlowID(flowSchemaName: string, distinguisher: string): bigint {
  const digest = createHash('sha256').update(flowSchemaName).update(new Uint8Array([0])).update(distinguisher).digest();
  return digest.readBigUInt64LE(0);
}
