import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, k8s, messages, plat, summary, update } from '../testing/harness.js';
import { checkFields } from '@plat/registry';
import { limitRangeDefinition, type LimitRange, type LimitRangeItem } from './limit-range.js';

const lr = (...limits: LimitRangeItem[]): LimitRange => ({ metadata: { name: 'limits', namespace: 'default' }, spec: { limits } });
const validate = (object: LimitRange, context = plat) => limitRangeDefinition.strategy.validate(object, context);

test('limit range: a full valid range passes', () => {
  const { errors } = create(
    limitRangeDefinition,
    lr(
      { type: 'Pod', min: { cpu: '100m', memory: '4Mi' }, max: { cpu: '2', memory: '1Gi' } },
      {
        type: 'Container',
        min: { cpu: '100m' },
        max: { cpu: '2', memory: '1Gi' },
        default: { cpu: '500m' },
        defaultRequest: { cpu: '200m' },
        maxLimitRequestRatio: { cpu: '10' },
      },
      { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } },
      { type: 'example.com/widget', max: { 'example.com/gadgets': 3 } },
    ),
  );
  assert.deepEqual(errors, []);
});

const defaultCases: { name: string; input: LimitRangeItem; want: LimitRangeItem }[] = [
  {
    name: 'a container default limit is the max, the default request the default',
    input: { type: 'Container', max: { cpu: '2' } },
    want: { type: 'Container', max: { cpu: '2' }, default: { cpu: '2' }, defaultRequest: { cpu: '2' } },
  },
  {
    name: 'a container default request falls back to the min',
    input: { type: 'Container', min: { memory: '64Mi' } },
    want: { type: 'Container', min: { memory: '64Mi' }, defaultRequest: { memory: '64Mi' } },
  },
  {
    name: 'given defaults are kept',
    input: { type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '500m' } },
    want: { type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '500m' } },
  },
  {
    name: 'the default limit wins over the min for the default request',
    input: { type: 'Container', min: { cpu: '100m' }, default: { cpu: '1' } },
    want: { type: 'Container', min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '1' } },
  },
  {
    name: 'pods get no defaults',
    input: { type: 'Pod', max: { cpu: '2' } },
    want: { type: 'Pod', max: { cpu: '2' } },
  },
  {
    name: 'quantities are stored in canonical form',
    input: { type: 'PersistentVolumeClaim', min: { storage: 2000 }, max: { storage: '1000m' }, maxLimitRequestRatio: { storage: '1024Mi' } },
    want: { type: 'PersistentVolumeClaim', min: { storage: '2k' }, max: { storage: '1' }, maxLimitRequestRatio: { storage: '1Gi' } },
  },
  {
    name: 'JSON numbers with a fraction or an exponent are quantities too, as upstream decodes them',
    input: { type: 'Pod', max: { cpu: 0.5, memory: 1.5e3 } },
    want: { type: 'Pod', max: { cpu: '500m', memory: '1500' } },
  },
];
for (const c of defaultCases) {
  test(`limit range default: ${c.name}`, () => {
    const object = lr(structuredClone(c.input));
    limitRangeDefinition.strategy.default(object);
    assert.deepEqual(object.spec?.limits[0], c.want);
  });
}

test('limit range default: idempotent', () => {
  const object = lr({ type: 'Container', max: { cpu: '2000m' }, min: { cpu: '0.1' } });
  limitRangeDefinition.strategy.default(object);
  const once = structuredClone(object);
  limitRangeDefinition.strategy.default(object);
  assert.deepEqual(object, once);
});

const invalidCases: { name: string; item: LimitRangeItem; want: string[] }[] = [
  {
    name: 'min above max',
    item: { type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } },
    want: ['spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1'],
  },
  {
    name: 'default request below min',
    item: { type: 'Container', min: { cpu: '500m' }, defaultRequest: { cpu: '100m' } },
    want: ['spec.limits[0].defaultRequest[cpu]: Invalid value: "100m": min value 500m is greater than default request value 100m'],
  },
  {
    name: 'default request above max',
    item: { type: 'Container', max: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '2' } },
    want: [
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default request value 2 is greater than max value 1',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default request value 2 is greater than default limit value 1',
    ],
  },
  {
    name: 'default request above default',
    item: { type: 'Container', default: { memory: '1Gi' }, defaultRequest: { memory: '2Gi' } },
    want: ['spec.limits[0].defaultRequest[memory]: Invalid value: "2Gi": default request value 2Gi is greater than default limit value 1Gi'],
  },
  {
    name: 'default below min',
    item: { type: 'Container', min: { cpu: '1' }, default: { cpu: '500m' } },
    want: ['spec.limits[0].default[cpu]: Invalid value: "1": min value 1 is greater than default value 500m'],
  },
  {
    name: 'default above max',
    item: { type: 'Container', max: { cpu: '1' }, default: { cpu: '2' }, defaultRequest: { cpu: '1' } },
    want: ['spec.limits[0].default[cpu]: Invalid value: "1": default value 2 is greater than max value 1'],
  },
  {
    name: 'ratio below 1',
    item: { type: 'Container', maxLimitRequestRatio: { cpu: '500m' } },
    want: ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1'],
  },
  {
    name: 'ratio above max/min',
    item: { type: 'Pod', min: { cpu: '100m' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '20' } },
    want: ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "20": ratio 20 is greater than max/min = 10.000000'],
  },
  {
    name: 'a zero min allows any ratio',
    item: { type: 'Pod', min: { cpu: '0' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '20' } },
    want: [],
  },
  {
    name: 'pods take no defaults',
    item: { type: 'Pod', default: { cpu: '1' }, defaultRequest: { cpu: '1' } },
    want: [
      "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
      "spec.limits[0].defaultRequest: Forbidden: may not be specified when `type` is 'Pod'",
    ],
  },
  {
    name: 'a claim limit needs a storage bound',
    item: { type: 'PersistentVolumeClaim', max: { 'requests.storage': '1Gi' } },
    want: ['spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided'],
  },
  {
    name: 'an unknown unqualified type',
    item: { type: 'Widget' },
    want: ['spec.limits[0].type: Invalid value: "Widget": must be a standard limit type or fully qualified'],
  },
  {
    name: 'a non-compute resource on a container',
    item: { type: 'Container', max: { pods: '2' }, default: { pods: '2' }, defaultRequest: { pods: '2' } },
    want: [
      'spec.limits[0].max[pods]: Invalid value: "pods": must be a standard resource for containers',
      'spec.limits[0].default[pods]: Invalid value: "pods": must be a standard resource for containers',
      'spec.limits[0].defaultRequest[pods]: Invalid value: "pods": must be a standard resource for containers',
    ],
  },
  {
    name: 'an unknown unqualified resource on a container',
    item: { type: 'Pod', max: { gizmos: '2' } },
    want: [
      'spec.limits[0].max[gizmos]: Invalid value: "gizmos": must be a standard resource type or fully qualified',
      'spec.limits[0].max[gizmos]: Invalid value: "gizmos": must be a standard resource for containers',
    ],
  },
  {
    name: 'an extended resource must be overcommit-free',
    item: { type: 'Container', default: { 'example.com/gpu': '2' }, defaultRequest: { 'example.com/gpu': '1' } },
    want: [
      'spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: "1": default value 2 must equal to defaultRequest value 1 in example.com/gpu',
    ],
  },
  {
    name: 'hugepages must be overcommit-free',
    item: { type: 'Container', default: { 'hugepages-2Mi': '4Mi' }, defaultRequest: { 'hugepages-2Mi': '2Mi' } },
    want: [
      'spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: "2Mi": default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi',
    ],
  },
  {
    name: 'a quantity that does not parse',
    item: { type: 'Pod', max: { cpu: 'lots' } },
    want: ['FieldValueInvalid spec.limits[0].max[cpu]'],
  },
];
for (const c of invalidCases) {
  test(`limit range validate: ${c.name}`, () => {
    const errors = validate(lr(c.item));
    const got = c.want.every((w) => w.includes(':')) ? messages(errors) : summary(errors);
    assert.deepEqual(got, c.want);
  });
}

test('limit range validate: a repeated type', () => {
  const errors = validate(lr({ type: 'Pod', max: { cpu: '1' } }, { type: 'Pod', max: { cpu: '2' } }));
  assert.deepEqual(messages(errors), ['spec.limits[1].type: Duplicate value: "Pod"']);
});

test('limit range validate: errors across items carry their index', () => {
  const errors = validate(lr({ type: 'Pod' }, { type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } }));
  assert.deepEqual(summary(errors), ['FieldValueDuplicate spec.limits[1].type', 'FieldValueInvalid spec.limits[1].min[cpu]']);
});

test('limit range validate: the well-known prefix follows the domain', () => {
  const item: LimitRangeItem = { type: 'Container', max: { 'kubernetes.io/widgets': '1' } };
  assert.deepEqual(validate(lr(item), k8s), []);
  assert.deepEqual(summary(validate(lr({ type: 'Container', max: { 'plat.io/widgets': '1' } }), plat)), []);
});

test('limit range update: validated as on create', () => {
  const old = lr({ type: 'Pod', max: { cpu: '1' } });
  const { errors } = update(limitRangeDefinition, lr({ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } }), old);
  assert.deepEqual(summary(errors), ['FieldValueInvalid spec.limits[0].min[cpu]']);
});

test('limit range: registration as upstream', () => {
  assert.deepEqual(limitRangeDefinition.shortNames, ['limits']);
  assert.equal(limitRangeDefinition.allowCreateOnUpdate, true);
  assert.equal(limitRangeDefinition.namespaced, true);
  assert.equal('tableColumns' in limitRangeDefinition, false);
});

// Upstream's typed decoder parses every resource.Quantity: a string that is none makes the body a
// 400 (the whole message is the parser's), before defaulting could copy it anywhere.
const decodeCases: { name: string; max: Record<string, unknown>; typeErrors: string[] }[] = [
  { name: 'strings and numbers that are quantities', max: { cpu: '250m', memory: 1.5, storage: 1e3, pods: '1E3' }, typeErrors: [] },
  {
    name: 'a string of the wrong shape',
    max: { cpu: 'abc' },
    typeErrors: ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
  },
  { name: 'an unknown suffix', max: { cpu: '1Qi' }, typeErrors: ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"] },
  { name: 'a suffix that is not one', max: { cpu: '1mm' }, typeErrors: ["unable to parse quantity's suffix"] },
  { name: 'neither a string nor a number', max: { cpu: true }, typeErrors: ['spec.limits[0].max.cpu: must be string,number'] },
];
for (const c of decodeCases) {
  test(`limit range decode: ${c.name}`, () => {
    const object = { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', max: c.max }] } };
    assert.deepEqual(checkFields(limitRangeDefinition, object, false).typeErrors, c.typeErrors);
  });
}
