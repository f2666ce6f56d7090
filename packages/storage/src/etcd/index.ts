// The etcd client's parts, for benchmarks and tools that compare transports on the same messages:
// the channel (our HTTP/2 client), the gRPC framing and the wire codecs.
export { EtcdChannel, type CallOptions, type EtcdChannelOptions, type RetryPolicy } from './channel.js';
export { GrpcError, GrpcUnavailableError, frame, grpcStatus, unframe } from './grpc.js';
export { decodeRangeResponse, decodeTxnResponse, encodeRangeRequest, encodeTxnRequest } from './wire.js';
