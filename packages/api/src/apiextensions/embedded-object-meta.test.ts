// A request's embedded resources decoded as upstream's objectmeta.Coerce decodes them: each field of
// ObjectMeta given a value of the wrong JSON type is Go's decoding error (the request's 400), and
// metadata that decodes is written back as ObjectMeta writes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coerceEmbeddedResources } from './embedded-object-meta.js';
import type { JSONSchemaProps, JsonValue } from './types.js';

const embedded: JSONSchemaProps = { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true };
const schema: JSONSchemaProps = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { template: embedded, list: { type: 'array', items: embedded } } } },
};
const withTemplate = (metadata: JsonValue): JsonValue => ({ metadata: { name: 'root' }, spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata } } });
const prefix = 'spec.template.metadata: Invalid value: ';

test('embedded metadata of the wrong JSON type: Go decoding ObjectMeta, the first error by key', () => {
  const cases: [metadata: JsonValue, error: string][] = [
    [{ name: 5 }, `map[string]interface {}{"name":5}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string`],
    [{ namespace: [] }, `map[string]interface {}{"namespace":[]interface {}{}}: json: cannot unmarshal array into Go struct field ObjectMeta.namespace of type string`],
    [{ generateName: {} }, `map[string]interface {}{"generateName":map[string]interface {}{}}: json: cannot unmarshal object into Go struct field ObjectMeta.generateName of type string`],
    [{ uid: true }, `map[string]interface {}{"uid":true}: json: cannot unmarshal bool into Go struct field ObjectMeta.uid of type string`],
    [{ resourceVersion: 1 }, `map[string]interface {}{"resourceVersion":1}: json: cannot unmarshal number into Go struct field ObjectMeta.resourceVersion of type string`],
    [{ generation: 'x' }, `map[string]interface {}{"generation":"x"}: json: cannot unmarshal string into Go struct field ObjectMeta.generation of type int64`],
    [{ generation: 1.5 }, `map[string]interface {}{"generation":1.5}: json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.generation of type int64`],
    [{ labels: 'a=b' }, `map[string]interface {}{"labels":"a=b"}: json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string`],
    [{ labels: { a: 1 } }, `map[string]interface {}{"labels":map[string]interface {}{"a":1}}: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string`],
    [{ annotations: ['x'] }, `map[string]interface {}{"annotations":[]interface {}{"x"}}: json: cannot unmarshal array into Go struct field ObjectMeta.annotations of type map[string]string`],
    [{ annotations: { a: false } }, `map[string]interface {}{"annotations":map[string]interface {}{"a":false}}: json: cannot unmarshal bool into Go struct field ObjectMeta.annotations of type string`],
    [{ finalizers: 'x' }, `map[string]interface {}{"finalizers":"x"}: json: cannot unmarshal string into Go struct field ObjectMeta.finalizers of type []string`],
    [{ finalizers: [1] }, `map[string]interface {}{"finalizers":[]interface {}{1}}: json: cannot unmarshal number into Go struct field ObjectMeta.finalizers of type string`],
    [{ ownerReferences: {} }, `map[string]interface {}{"ownerReferences":map[string]interface {}{}}: json: cannot unmarshal object into Go struct field ObjectMeta.ownerReferences of type []v1.OwnerReference`],
    [{ ownerReferences: ['x'] }, `map[string]interface {}{"ownerReferences":[]interface {}{"x"}}: json: cannot unmarshal string into Go struct field ObjectMeta.ownerReferences of type v1.OwnerReference`],
    [{ ownerReferences: [{ name: 5 }] }, `map[string]interface {}{"ownerReferences":[]interface {}{map[string]interface {}{"name":5}}}: json: cannot unmarshal number into Go struct field OwnerReference.ownerReferences.name of type string`],
    [{ ownerReferences: [{ controller: 'yes' }] }, `map[string]interface {}{"ownerReferences":[]interface {}{map[string]interface {}{"controller":"yes"}}}: json: cannot unmarshal string into Go struct field OwnerReference.ownerReferences.controller of type bool`],
    [{ managedFields: 1 }, `map[string]interface {}{"managedFields":1}: json: cannot unmarshal number into Go struct field ObjectMeta.managedFields of type []v1.ManagedFieldsEntry`],
    [{ creationTimestamp: 5 }, `map[string]interface {}{"creationTimestamp":5}: json: cannot unmarshal number into Go struct field ObjectMeta.creationTimestamp of type string`],
    [{ deletionTimestamp: 'soon' }, `map[string]interface {}{"deletionTimestamp":"soon"}: parsing time "soon" as "2006-01-02T15:04:05Z07:00": cannot parse "soon" as "2006"`],
    // Go reports the first type error in key order; a bad time stops it at once.
    [{ uid: 1, name: 2 }, `map[string]interface {}{"name":2, "uid":1}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string`],
    ['x', `"x": json: cannot unmarshal string into Go value of type v1.ObjectMeta`],
    [7, `7: json: cannot unmarshal number into Go value of type v1.ObjectMeta`],
  ];
  for (const [metadata, error] of cases) {
    assert.deepEqual(coerceEmbeddedResources(schema, withTemplate(metadata)), { error: prefix + error, unknownFields: [] }, JSON.stringify(metadata));
  }
});

test('embedded type meta must be strings; items are named by index', () => {
  assert.equal(coerceEmbeddedResources(schema, { spec: { template: { apiVersion: 1, kind: 'Pod' } } }).error, 'spec.template.apiVersion: Invalid value: 1: must be a string');
  const list: JsonValue = { spec: { list: [{ apiVersion: 'v1', kind: 'Pod' }, { apiVersion: 'v1', kind: 'Pod', metadata: { labels: [] } }] } };
  assert.equal(
    coerceEmbeddedResources(schema, list).error,
    'spec.list[1].metadata: Invalid value: map[string]interface {}{"labels":[]interface {}{}}: json: cannot unmarshal array into Go struct field ObjectMeta.labels of type map[string]string',
  );
});

test('metadata that decodes is written back as ObjectMeta writes it, unknown fields named', () => {
  const object = withTemplate({
    name: 'a',
    namespace: '',
    zz: 1,
    labels: { a: null },
    finalizers: [null, 'x/y'],
    ownerReferences: [{ name: 'o', extra: true }],
    creationTimestamp: '2024-01-02T03:04:05.678+01:00',
  });
  const result = coerceEmbeddedResources(schema, object);
  assert.deepEqual(result, { unknownFields: ['spec.template.metadata.ownerReferences[0].extra', 'spec.template.metadata.zz'] });
  assert.deepEqual((object as { spec: { template: { metadata: JsonValue } } }).spec.template.metadata, {
    name: 'a',
    creationTimestamp: '2024-01-02T02:04:05Z',
    labels: { a: '' },
    ownerReferences: [{ apiVersion: '', kind: '', name: 'o', uid: '' }],
    finalizers: ['', 'x/y'],
  });
  const nullMeta = withTemplate(null);
  assert.deepEqual(coerceEmbeddedResources(schema, nullMeta), { unknownFields: [] });
  assert.deepEqual((nullMeta as { spec: { template: { metadata: JsonValue } } }).spec.template.metadata, {});
});

test('the root is not an embedded resource here: its metadata is the store’s', () => {
  assert.deepEqual(coerceEmbeddedResources(schema, { metadata: { name: 5, zz: 1 } }), { unknownFields: [] });
});
