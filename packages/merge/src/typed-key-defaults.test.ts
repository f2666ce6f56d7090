// A map list's key field left out of an item stands at its schema default, as structured-merge-diff's
// getAssociativeKeyDefault (a Service's ports keyed by port and protocol, protocol defaulting to TCP);
// without a default the item is refused with upstream's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeFieldsV1 } from './fieldpath/fields-v1.js';
import { fieldSetFromObject } from './index.js';
import type { JSONSchema } from './schema-walker.js';

const ports = (protocolDefault: boolean): JSONSchema => ({
  type: 'object',
  properties: {
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', ...(protocolDefault && { default: 'TCP' }) }, name: { type: 'string' } } },
    },
  },
});

test('an item without its defaulted key field is keyed by the default', () => {
  const set = fieldSetFromObject({ ports: [{ port: 80, name: 'http' }] }, ports(true));
  assert.deepEqual(encodeFieldsV1(set), { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } });
});

test('without a default, the item is refused as upstream refuses it', () => {
  assert.throws(() => fieldSetFromObject({ ports: [{ port: 80 }] }, ports(false)), {
    message: '.ports: element 0: associative list with keys has an element that omits key field "protocol" (and doesn\'t have default value)',
  });
});
