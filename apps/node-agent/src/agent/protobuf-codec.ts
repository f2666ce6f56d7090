// The agent's client codec for contentType: Kubernetes' Protobuf for every built-in kind (the Node
// and Lease it writes, the reviews it asks for, the Status errors it reads).
import { builtinDefinitions } from '@plat/api';
import { decodeObject, encodeObject, hasProtobuf, registerProtobufKinds } from '@plat/protobuf';
import type { ObjectCodec } from '@plat/client';

/** The Protobuf media type under a domain: application/vnd.plat.protobuf, or application/vnd.kubernetes.protobuf. */
export const protobufMediaType = (domain: string): string => `application/vnd.${domain === 'k8s.io' ? 'kubernetes' : domain.split('.')[0]}.protobuf`;

let registered = false;

export function protobufCodec(domain: string): ObjectCodec {
  if (!registered) {
    registerProtobufKinds(builtinDefinitions);
    registered = true;
  }
  return {
    mediaType: protobufMediaType(domain),
    carries: (apiVersion, kind) => {
      const slash = apiVersion.indexOf('/');
      return hasProtobuf(slash < 0 ? '' : apiVersion.slice(0, slash), slash < 0 ? apiVersion : apiVersion.slice(slash + 1), kind);
    },
    encode: (object) => encodeObject(object),
    decode: (bytes) => decodeObject(bytes),
  };
}
