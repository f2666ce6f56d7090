import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, k8s, messages, update } from '../testing/harness.js';
import { eventColumns, eventDefinition as eventKind, eventSelectableFields, validateEvent, validateEventUpdate, type Event } from './event.js';

const eventDefinition = eventKind({ ttlSeconds: 0 });

/** A legacy event as client-go's recorder writes it, about a pod in team-a. */
const legacy = (fields: Partial<Event> = {}, namespace = 'team-a'): Event => ({
  metadata: { name: 'web-0.17c4a1e2f0b3d5a6', namespace },
  involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'web-0' },
  reason: 'BackOff',
  message: 'Back-off restarting failed container',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:05:00Z',
  count: 3,
  type: 'Warning',
  ...fields,
});

/** An event of the new API (eventTime set), in the core v1 shape it is stored in. */
const modern = (fields: Partial<Event> = {}, namespace = 'team-a'): Event => ({
  metadata: { name: 'web-0.17c4a1e2f0b3d5a7', namespace },
  involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'web-0' },
  reason: 'Started',
  message: 'Started container',
  eventTime: '2024-05-01T10:00:00.000001Z',
  action: 'Start',
  type: 'Normal',
  reportingComponent: 'kubelet',
  reportingInstance: 'node-1',
  ...fields,
});

// Each rule of upstream's legacyValidateEvent, through core v1 (never strict).
const legacyCases: { name: string; event: Event; want: string[] }[] = [
  { name: 'a recorded event', event: legacy(), want: [] },
  {
    name: 'the involved object in another namespace',
    event: legacy({ involvedObject: { kind: 'Pod', namespace: 'team-b', name: 'x' } }),
    want: ['involvedObject.namespace: Invalid value: "team-b": does not match event.namespace'],
  },
  { name: 'a cluster-scoped object in default', event: legacy({ involvedObject: { kind: 'Node', name: 'node-1' } }, 'default'), want: [] },
  {
    name: 'a cluster-scoped object elsewhere',
    event: legacy({ involvedObject: { kind: 'Node', name: 'node-1' } }, 'team-a'),
    want: ['involvedObject.namespace: Invalid value: "": does not match event.namespace'],
  },
  { name: 'anything goes for type, reason and count without an eventTime', event: legacy({ type: 'Odd', reason: '', count: 0, source: {} }), want: [] },
  { name: 'a new-API event', event: modern(), want: [] },
  { name: 'a new-API event about a cluster-scoped object in default', event: modern({ involvedObject: { kind: 'Node', name: 'n' } }, 'default'), want: [] },
  { name: 'a new-API event about a cluster-scoped object in the system namespace', event: modern({ involvedObject: { kind: 'Node', name: 'n' } }, 'plat-system'), want: [] },
  {
    name: 'a new-API event about a cluster-scoped object elsewhere',
    event: modern({ involvedObject: { kind: 'Node', name: 'n' } }, 'team-a'),
    want: ['involvedObject.namespace: Invalid value: "": does not match event.namespace'],
  },
  {
    name: 'a new-API event needs its reporting controller, instance, action and reason',
    event: modern({ reportingComponent: '', reportingInstance: '', action: '', reason: '' }),
    want: [
      'reportingController: Required value',
      'reportingController: Invalid value: "": name part must be non-empty',
      "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
    ],
  },
  {
    name: 'a reporting controller that is no qualified name',
    event: modern({ reportingComponent: 'plat.io/-bad' }),
    want: [
      "reportingController: Invalid value: \"plat.io/-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
  },
  {
    name: 'lengths: instance, action and reason 128, message 1024',
    event: modern({ reportingInstance: 'i'.repeat(129), action: 'a'.repeat(129), reason: 'r'.repeat(129), message: 'm'.repeat(1025) }),
    want: [
      'reportingInstance: Invalid value: "": can have at most 128 characters',
      'action: Invalid value: "": can have at most 128 characters',
      'reason: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters',
    ],
  },
  { name: 'lengths at their limits', event: modern({ reportingInstance: 'i'.repeat(128), action: 'a'.repeat(128), reason: 'r'.repeat(128), message: 'm'.repeat(1024) }), want: [] },
  { name: "Go's zero time is no eventTime", event: legacy({ eventTime: '0001-01-01T00:00:00Z' }), want: [] },
];
for (const c of legacyCases) {
  test(`event validate (core v1): ${c.name}`, () => {
    assert.deepEqual(messages(create(eventDefinition, c.event).errors), c.want);
    // An update through core v1 checks the same and nothing more: the recorder rewrites count and times.
    assert.deepEqual(messages(update(eventDefinition, c.event, legacy({ count: 1, reason: 'Other' })).errors), c.want);
  });
}

test('event validate: the namespace must be a DNS subdomain (reported at "namespace")', () => {
  assert.deepEqual(messages(validateEvent(legacy({}, 'Team_A'), 'plat.io', false)), [
    'involvedObject.namespace: Invalid value: "team-a": does not match event.namespace',
    "namespace: Invalid value: \"Team_A\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
});

test('event validate: under k8s.io the system namespace is kube-system', () => {
  const aboutNode = modern({ involvedObject: { kind: 'Node', name: 'n' } }, 'kube-system');
  assert.deepEqual(create(eventDefinition, aboutNode, k8s).errors, []);
  assert.equal(create(eventDefinition, aboutNode).errors.length, 1);
});

// Each rule the strict validation (events.{domain}/v1) adds on create.
const strictCases: { name: string; event: Event; want: string[] }[] = [
  { name: 'a new-API event', event: modern(), want: [] },
  {
    name: 'a legacy event',
    event: legacy(),
    want: [
      'eventTime: Required value',
      'firstTimestamp: Invalid value: "": needs to be unset',
      'lastTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ],
  },
  { name: 'a type other than Normal or Warning', event: modern({ type: 'Odd' }), want: ['type: Invalid value: "": has invalid value: Odd'] },
  { name: 'no type', event: modern({ type: '' }), want: ['type: Invalid value: "": has invalid value: '] },
  { name: 'a source host alone', event: modern({ source: { host: 'n' } }), want: ['source: Invalid value: "": needs to be unset'] },
  { name: 'an empty source is unset', event: modern({ source: {} }), want: [] },
  {
    name: 'a series of one, without its time',
    event: modern({ series: { count: 1 } }),
    want: ['series.count: Invalid value: "": should be at least 2', 'series.lastObservedTime: Required value'],
  },
  { name: 'a series', event: modern({ series: { count: 2, lastObservedTime: '2024-05-01T10:05:00.000000Z' } }), want: [] },
];
for (const c of strictCases) {
  test(`event validate (events v1): ${c.name}`, () => assert.deepEqual(messages(validateEvent(c.event, 'plat.io', true)), c.want));
}

// Strict updates: a changed series is checked, everything else but metadata is immutable.
const updateCases: { name: string; change: Partial<Event>; want: string[] }[] = [
  { name: 'a series that grows', change: { series: { count: 3, lastObservedTime: '2024-05-01T10:06:00.000000Z' } }, want: [] },
  { name: 'a bad series', change: { series: { count: 1, lastObservedTime: '2024-05-01T10:06:00.000000Z' } }, want: ['series.count: Invalid value: "": should be at least 2'] },
  { name: 'labels', change: { metadata: { name: 'web-0.17c4a1e2f0b3d5a7', namespace: 'team-a', labels: { a: 'b' } } }, want: [] },
  { name: 'the note', change: { message: 'other' }, want: ['message: Invalid value: "other": field is immutable'] },
  { name: 'the reason (reported twice, as upstream)', change: { reason: 'Other' }, want: ['reason: Invalid value: "Other": field is immutable', 'reason: Invalid value: "Other": field is immutable'] },
  { name: 'the action', change: { action: 'Stop' }, want: ['action: Invalid value: "Stop": field is immutable'] },
  { name: 'the type', change: { type: 'Warning' }, want: ['type: Invalid value: "Warning": field is immutable'] },
  { name: 'the eventTime', change: { eventTime: '2024-05-01T11:00:00.000000Z' }, want: ['eventTime: Invalid value: "2024-05-01T11:00:00.000000Z": field is immutable'] },
  { name: 'the reporting controller', change: { reportingComponent: 'other' }, want: ['reportingController: Invalid value: "other": field is immutable'] },
  { name: 'the reporting instance', change: { reportingInstance: 'node-2' }, want: ['reportingInstance: Invalid value: "node-2": field is immutable'] },
  { name: 'the regarding object', change: { involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'web-1' } }, want: ['involvedObject: Invalid value: {"kind":"Pod","namespace":"team-a","name":"web-1"}: field is immutable'] },
  { name: 'the related object', change: { related: { kind: 'Node', name: 'n' } }, want: ['related: Invalid value: {"kind":"Node","name":"n"}: field is immutable'] },
  { name: 'an empty source is no change', change: { source: {} }, want: [] },
];
for (const c of updateCases) {
  test(`event validate update (events v1): ${c.name}`, () => {
    const old = modern({ series: { count: 2, lastObservedTime: '2024-05-01T10:05:00.000000Z' } });
    assert.deepEqual(messages(validateEventUpdate({ ...old, ...c.change }, old, 'plat.io', true)), c.want);
  });
}

test('event names: any path segment, as upstream checks no more', () => {
  const check = eventDefinition.validateName;
  assert.deepEqual(check('web-0.17c4a1e2f0b3d5a6', false), []);
  assert.deepEqual(check('Web_0:x', false), []);
  assert.notDeepEqual(check('a/b', false), []);
  assert.notDeepEqual(check('..', false), []);
});

test('event defaults: times as upstream writes them, and the structs Go always writes', () => {
  const { object } = create(eventDefinition, {
    metadata: { name: 'e', namespace: 'default' },
    firstTimestamp: '2024-05-01T12:00:00.789+02:00',
    eventTime: '2024-05-01T10:00:00.1234567Z',
    series: { count: 2, lastObservedTime: '2024-05-01T10:00:01Z' },
  });
  assert.deepEqual(
    [object.firstTimestamp, object.eventTime, object.series?.lastObservedTime, object.involvedObject, object.source],
    ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00.123456Z', '2024-05-01T10:00:01.000000Z', {}, {}],
  );
});

test('event field selectors: upstream names; source falls back to the reporting controller', () => {
  const fields = eventSelectableFields(modern({ involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'web-0', uid: 'u', fieldPath: 'spec' } }));
  assert.deepEqual(fields, {
    'involvedObject.kind': 'Pod',
    'involvedObject.namespace': 'team-a',
    'involvedObject.name': 'web-0',
    'involvedObject.uid': 'u',
    'involvedObject.apiVersion': '',
    'involvedObject.resourceVersion': '',
    'involvedObject.fieldPath': 'spec',
    reason: 'Started',
    reportingComponent: 'kubelet',
    source: 'kubelet',
    type: 'Normal',
  });
  assert.equal(eventSelectableFields(legacy()).source, 'kubelet');
});

// kubectl get events: upstream's columns and cells, for events of either API.
const now = Date.parse('2024-05-01T10:10:00Z');
const row = (event: Event): unknown[] => eventColumns(() => now).map((column) => column.value(event, { domain: 'plat.io' }));
const tableCases: { name: string; event: Event; want: unknown[] }[] = [
  {
    name: 'a legacy event: its count and times',
    event: legacy(),
    want: ['5m', 'Warning', 'BackOff', 'pod/web-0', '', 'kubelet, node-1', 'Back-off restarting failed container', '10m', 3, 'web-0.17c4a1e2f0b3d5a6'],
  },
  {
    name: 'a singleton of the new API: count 1, its eventTime for both times',
    event: modern({ message: '  Started container \n' }),
    want: ['10m', 'Normal', 'Started', 'pod/web-0', '', 'kubelet, node-1', 'Started container', '10m', 1, 'web-0.17c4a1e2f0b3d5a7'],
  },
  {
    name: 'a series: its count and last observation',
    event: modern({ series: { count: 4, lastObservedTime: '2024-05-01T10:09:30.000000Z' } }),
    want: ['30s', 'Normal', 'Started', 'pod/web-0', '', 'kubelet, node-1', 'Started container', '10m', 4, 'web-0.17c4a1e2f0b3d5a7'],
  },
  {
    name: 'no times at all, an object without a name',
    event: { metadata: { name: 'x' }, involvedObject: { kind: 'Namespace' } },
    want: ['<unknown>', '', '', 'namespace', '', '', '', '<unknown>', 1, 'x'],
  },
];
test('event columns: upstream\'s names, the wide ones at priority 1', () => {
  assert.deepEqual(
    eventColumns().map((c) => `${c.name}${c.priority ? ' (wide)' : ''}`),
    ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject (wide)', 'Source (wide)', 'Message', 'First Seen (wide)', 'Count (wide)', 'Name (wide)'],
  );
});
for (const c of tableCases) {
  test(`event columns: ${c.name}`, () => assert.deepEqual(row(c.event), c.want));
}
