import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { create, messages, update } from '../testing/harness.js';
import { jsonObjectProblem, secretDefinition, type Secret } from './secret.js';

const secret = (fields: Omit<Secret, 'metadata'>, annotations?: Record<string, string>): Secret => ({
  metadata: { name: 's', namespace: 'default', ...(annotations && { annotations }) },
  ...fields,
});
const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('Secret: stringData and type on write', () => {
  it('stringData is written into data as UTF-8, its values winning, and is not kept', () => {
    const { object, errors } = create(secretDefinition, secret({ data: { a: b64('old'), b: b64('kept') }, stringData: { a: 'new', c: 'é' } }));
    assert.deepEqual(errors, []);
    assert.deepEqual(object.data, { a: b64('new'), b: b64('kept'), c: b64('é') });
    assert.equal(object.stringData, undefined);
    assert.equal(object.type, 'Opaque', 'the type defaults to Opaque');
  });
  it('on update too, before validation sees data', () => {
    const old = secret({ type: 'Opaque', data: { a: b64('x') } });
    const { object } = update(secretDefinition, secret({ type: 'Opaque', data: { a: b64('x') }, stringData: { b: 'y' } }), old);
    assert.deepEqual(object.data, { a: b64('x'), b: b64('y') });
    assert.equal(object.stringData, undefined);
  });
  it('an invalid stringData key is reported as data\'s', () => {
    assert.match(messages(create(secretDefinition, secret({ stringData: { 'a b': 'x' } })).errors)[0]!, /^data\[a b\]: Invalid value: "a b": a valid config key/);
  });
});

describe('Secret validation by type (upstream 1.28)', () => {
  const cases: { name: string; object: Secret; want: string[] }[] = [
    { name: 'Opaque with any keys', object: secret({ type: 'Opaque', data: { 'x.y': b64('z') } }), want: [] },
    { name: 'a type of the user\'s own', object: secret({ type: 'example.com/widget' }), want: [] },
    { name: 'a bootstrap token: no keys required by the core rules', object: secret({ type: 'bootstrap.kubernetes.io/token' }), want: [] },
    { name: 'a data key with a slash', object: secret({ data: { 'a/b': b64('x') } }), want: ["data[a/b]: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"] },
    { name: 'over 1 MiB of data', object: secret({ data: { a: Buffer.alloc(1024 * 1024 + 1).toString('base64') } }), want: ['data: Too long: must have at most 1048576 bytes'] },
    { name: 'exactly 1 MiB of data', object: secret({ data: { a: Buffer.alloc(1024 * 1024).toString('base64') } }), want: [] },
    { name: 'service-account-token with the account named', object: secret({ type: 'kubernetes.io/service-account-token' }, { 'kubernetes.io/service-account.name': 'default' }), want: [] },
    { name: 'service-account-token without the account', object: secret({ type: 'kubernetes.io/service-account-token' }), want: ['metadata.annotations[kubernetes.io/service-account.name]: Required value'] },
    { name: 'tls with both keys', object: secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }), want: [] },
    { name: 'tls without its keys', object: secret({ type: 'kubernetes.io/tls', data: {} }), want: ['data[tls.crt]: Required value', 'data[tls.key]: Required value'] },
    { name: 'basic-auth with a username only', object: secret({ type: 'kubernetes.io/basic-auth', data: { username: '' } }), want: [] },
    { name: 'basic-auth with neither', object: secret({ type: 'kubernetes.io/basic-auth' }), want: ['data[username]: Required value', 'data[password]: Required value'] },
    { name: 'ssh-auth with a key', object: secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': b64('k') } }), want: [] },
    { name: 'ssh-auth with an empty key', object: secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }), want: ['data[ssh-privatekey]: Required value'] },
    { name: 'dockerconfigjson with a JSON object', object: secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } }), want: [] },
    { name: 'dockerconfigjson without its key', object: secret({ type: 'kubernetes.io/dockerconfigjson' }), want: ['data[.dockerconfigjson]: Required value'] },
    {
      name: 'dockerconfigjson that is not JSON',
      object: secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('xyz') } }),
      want: ['data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character \'x\' looking for beginning of value'],
    },
    {
      name: 'dockercfg that is a JSON list',
      object: secret({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('[]') } }),
      want: ['data[.dockercfg]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}'],
    },
  ];
  for (const { name, object, want } of cases) {
    it(name, () => assert.deepEqual(messages(create(secretDefinition, object).errors), want));
  }

  it('JSON problems in Go\'s words', () => {
    assert.equal(jsonObjectProblem(''), 'unexpected end of JSON input');
    assert.equal(jsonObjectProblem('null'), undefined);
    assert.equal(jsonObjectProblem('"x"'), 'json: cannot unmarshal string into Go value of type map[string]interface {}');
    assert.equal(jsonObjectProblem('{"a":'), 'unexpected end of JSON input');
    assert.equal(jsonObjectProblem('nope'), "invalid character 'o' in JSON input");
    assert.equal(jsonObjectProblem('true'), 'json: cannot unmarshal bool into Go value of type map[string]interface {}');
  });
});

describe('Secret update', () => {
  const frozen = secret({ type: 'Opaque', immutable: true, data: { a: b64('x') } });
  const cases: { name: string; old: Secret; object: Secret; want: string[] }[] = [
    { name: 'the type may not change', old: secret({ type: 'Opaque' }), object: secret({ type: 'kubernetes.io/basic-auth', data: { username: '' } }), want: ['type: Invalid value: "kubernetes.io/basic-auth": field is immutable'] },
    {
      // Upstream defaults the type while decoding, before its strategy could keep the old one.
      name: 'a type left out is Opaque, so a TLS secret cannot be replaced without its type',
      old: secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }),
      object: secret({ data: { 'tls.crt': '', 'tls.key': '' } }),
      want: ['type: Invalid value: "Opaque": field is immutable'],
    },
    { name: 'a mutable one: data changes', old: secret({ type: 'Opaque', data: { a: b64('x') } }), object: secret({ type: 'Opaque', data: { a: b64('y') } }), want: [] },
    { name: 'an immutable one: data frozen', old: frozen, object: { ...frozen, data: { a: b64('y') } }, want: ['data: Forbidden: field is immutable when `immutable` is set'] },
    { name: 'an immutable one: stringData is data', old: frozen, object: { ...frozen, stringData: { a: 'y' } }, want: ['data: Forbidden: field is immutable when `immutable` is set'] },
    { name: 'an immutable one: immutable may not be unset', old: frozen, object: { ...frozen, immutable: undefined }, want: ['immutable: Forbidden: field is immutable when `immutable` is set'] },
    { name: 'an immutable one: metadata may change', old: frozen, object: { ...frozen, metadata: { ...frozen.metadata, labels: { a: 'b' } } }, want: [] },
  ];
  for (const { name, old, object, want } of cases) {
    it(name, () => assert.deepEqual(messages(update(secretDefinition, object, old).errors), want));
  }
});

describe('Secret warnings', () => {
  it('a TLS Secret whose certificate and key are no pair is accepted, with a warning', () => {
    const tls = secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } });
    assert.deepEqual(messages(create(secretDefinition, tls).errors), []);
    assert.deepEqual(secretDefinition.strategy.warningsOnCreate(tls), ['tls: failed to find any PEM data in certificate input']);
    assert.deepEqual(secretDefinition.strategy.warningsOnUpdate(tls), ['tls: failed to find any PEM data in certificate input']);
    assert.deepEqual(secretDefinition.strategy.warningsOnCreate(secret({ type: 'Opaque' })), []);
  });
});

describe('Secret table and field selector', () => {
  it('Name, Type, Data, Age; a fieldSelector may name type', () => {
    const columns = secretDefinition.tableColumns;
    assert.deepEqual(columns.map((c) => c.name), ['Name', 'Type', 'Data', 'Age']);
    const object = secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } });
    assert.deepEqual([columns[1]!.value(object, { domain: 'plat.io' }), columns[2]!.value(object, { domain: 'plat.io' })], ['kubernetes.io/tls', 2]);
    assert.deepEqual(secretDefinition.selectableFields(object), { type: 'kubernetes.io/tls' });
  });
});
