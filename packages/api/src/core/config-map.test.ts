import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkFields } from '@plat/registry';
import { create, messages, update } from '../testing/harness.js';
import { configMapDefinition, type ConfigMap } from './config-map.js';

const cm = (fields: Omit<ConfigMap, 'metadata'>): ConfigMap => ({ metadata: { name: 'settings', namespace: 'default' }, ...fields });
const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('ConfigMap validation (upstream 1.28)', () => {
  const cases: { name: string; object: ConfigMap; want: string[] }[] = [
    { name: 'data and binaryData with valid keys', object: cm({ data: { 'app.properties': 'a=b', KEY_1: 'x', 'key-2': '' }, binaryData: { 'logo.png': b64('\x89PNG') } }), want: [] },
    { name: 'nothing at all', object: cm({}), want: [] },
    {
      name: 'a key with a slash',
      object: cm({ data: { 'a/b': 'x' } }),
      want: ["data[a/b]: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"],
    },
    { name: 'the key "."', object: cm({ data: { '.': 'x' } }), want: ['data[.]: Invalid value: ".": must not be \'.\''] },
    { name: 'the key ".."', object: cm({ binaryData: { '..': b64('x') } }), want: ['binaryData[..]: Invalid value: "..": must not be \'..\''] },
    { name: 'a key starting with ".."', object: cm({ data: { '..data': 'x' } }), want: ['data[..data]: Invalid value: "..data": must not start with \'..\''] },
    { name: 'an empty key', object: cm({ data: { '': 'x' } }), want: ["data[]: Invalid value: \"\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"] },
    { name: 'a key of 254 characters', object: cm({ data: { ['k'.repeat(254)]: 'x' } }), want: [`data[${'k'.repeat(254)}]: Invalid value: "${'k'.repeat(254)}": must be no more than 253 characters`] },
    { name: 'a key in both data and binaryData', object: cm({ data: { both: 'x' }, binaryData: { both: b64('y') } }), want: ['data[both]: Invalid value: "both": duplicate of key present in binaryData'] },
    { name: 'exactly 1 MiB of data', object: cm({ data: { a: 'x'.repeat(1024 * 1024 - 3) }, binaryData: { b: b64('xyz') } }), want: [] },
    { name: 'one byte over 1 MiB, text and bytes counted together', object: cm({ data: { a: 'x'.repeat(1024 * 1024 - 2) }, binaryData: { b: b64('xyz') } }), want: ['[]: Too long: must have at most 1048576 bytes'] },
    { name: 'multi-byte text counted in UTF-8 bytes', object: cm({ data: { a: 'é'.repeat(512 * 1024 + 1) } }), want: ['[]: Too long: must have at most 1048576 bytes'] },
  ];
  for (const { name, object, want } of cases) {
    it(name, () => assert.deepEqual(messages(create(configMapDefinition, object).errors), want));
  }

  it('binaryData values are base64, checked when decoded', () => {
    const check = checkFields(configMapDefinition, { apiVersion: 'v1', kind: 'ConfigMap', ...cm({ binaryData: { a: 'not base64!' } }) }, true);
    assert.match(JSON.stringify(check), /binaryData\.a: illegal base64 data/);
  });
});

describe('ConfigMap update', () => {
  const frozen = cm({ immutable: true, data: { a: 'x' }, binaryData: { b: b64('y') } });
  const cases: { name: string; old: ConfigMap; object: ConfigMap; want: string[] }[] = [
    { name: 'a mutable one changes freely', old: cm({ data: { a: 'x' } }), object: cm({ data: { a: 'y' }, immutable: true }), want: [] },
    { name: 'an immutable one: its metadata may change', old: frozen, object: { ...frozen, metadata: { ...frozen.metadata, labels: { x: 'y' } } }, want: [] },
    { name: 'an immutable one: data frozen', old: frozen, object: { ...frozen, data: { a: 'changed' } }, want: ['data: Forbidden: field is immutable when `immutable` is set'] },
    { name: 'an immutable one: binaryData frozen', old: frozen, object: { ...frozen, binaryData: {} }, want: ['binaryData: Forbidden: field is immutable when `immutable` is set'] },
    {
      name: 'an immutable one: immutable may not be unset',
      old: frozen,
      object: { ...frozen, immutable: false },
      want: ['immutable: Forbidden: field is immutable when `immutable` is set'],
    },
    { name: 'an immutable one: an empty map is as none', old: cm({ immutable: true }), object: cm({ immutable: true, data: {} }), want: [] },
  ];
  for (const { name, old, object, want } of cases) {
    it(name, () => assert.deepEqual(messages(update(configMapDefinition, object, old).errors), want));
  }
});

describe('ConfigMap table', () => {
  it('Name, Data (data and binaryData keys), Age', () => {
    const columns = configMapDefinition.tableColumns;
    assert.deepEqual(columns.map((c) => c.name), ['Name', 'Data', 'Age']);
    assert.equal(columns[1]!.value(cm({ data: { a: 'x', b: 'y' }, binaryData: { c: b64('z') } }), { domain: 'plat.io' }), 3);
  });
});
