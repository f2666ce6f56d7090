// Kubernetes' Protobuf wire format for the built-in kinds: the prefixed Unknown envelope, the kinds'
// messages with upstream's field numbers (proto/), and the length-delimited watch stream.
export { PROTOBUF_PREFIX, encodeObject, decodeObject, hasPrefix } from './codec.js';
export { listParts, type ListParts } from './list-parts.js';
export { encodeWatchEvent, decodeWatchFrames, type WatchEventJson } from './watch.js';
export {
  protobufKinds,
  registerProtobufKinds,
  hasProtobuf,
  findProtobufKind,
  protobufGroup,
  type ProtobufKind,
  type ProtobufKindSource,
  type GroupVersionKind,
} from './kinds.js';
export { ProtobufError, type ProtobufErrorReason } from './errors.js';
export type { JsonObject } from './compile.js';
export { protoDirectory } from './schema.js';
