import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { negotiate, type Offers, type Representation } from './negotiation.js';

const reads: Offers = { metaGroup: 'meta.k8s.io', transforms: true, partialKind: 'PartialObjectMetadataList' };
const writes: Offers = { ...reads, transforms: false };
const withProtobuf: Offers = { ...reads, protobuf: 'application/vnd.kubernetes.protobuf' };

const cases: Array<[string, string | undefined, Offers, Representation | 406]> = [
  ['no Accept header', undefined, reads, { type: 'json' }],
  ['*/*', '*/*', reads, { type: 'json' }],
  ['application/*', 'application/*', reads, { type: 'json' }],
  ['json with a charset', 'application/json; charset=utf-8', reads, { type: 'json' }],
  ['yaml', 'application/yaml', reads, { type: 'yaml' }],
  ['kubectl get: Table v1 first', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json', reads, { type: 'table', version: 'v1' }],
  ['Table v1beta1', 'application/json;as=Table;v=v1beta1;g=meta.k8s.io', reads, { type: 'table', version: 'v1beta1' }],
  ['Table of another group falls back', 'application/json;as=Table;v=v1;g=meta.plat.io, application/json', reads, { type: 'json' }],
  ['Table on a write falls back', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json', writes, { type: 'json' }],
  ['Table alone on a write', 'application/json;as=Table;v=v1;g=meta.k8s.io', writes, 406],
  ['metadata-only list', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', reads, { type: 'partial', version: 'v1' }],
  ['metadata-only object asked of a list', 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', reads, 406],
  ['protobuf where there is none, then json', 'application/vnd.kubernetes.protobuf, application/json', reads, { type: 'json' }],
  ['protobuf where there is one', 'application/vnd.kubernetes.protobuf, application/json', withProtobuf, { type: 'protobuf', mediaType: 'application/vnd.kubernetes.protobuf' }],
  ['q values order the choices', 'application/json;q=0.5, application/yaml', reads, { type: 'yaml' }],
  ['q=0 refuses', 'application/json;q=0', reads, 406],
  ['nothing served', 'text/html, image/png', reads, 406],
];

for (const [name, accept, offers, want] of cases) {
  test(`negotiation: ${name}`, () => {
    if (want === 406) {
      assert.throws(() => negotiate(accept, offers), (error: unknown) => isStatusError(error) && error.code === 406);
    } else {
      assert.deepEqual(negotiate(accept, offers), want);
    }
  });
}
