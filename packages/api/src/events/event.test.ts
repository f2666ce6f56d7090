import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, messages, update } from '../testing/harness.js';
import type { Event } from '../core/event.js';
import { eventsAPIEventDefinition as eventsAPIEventKind, fromCoreEvent, toCoreEvent, type EventsAPIEvent } from './event.js';

const eventsAPIEventDefinition = eventsAPIEventKind({ ttlSeconds: 0 });

const served: EventsAPIEvent = {
  metadata: { name: 'web-0.1', namespace: 'team-a' },
  eventTime: '2024-05-01T10:00:00.000001Z',
  series: { count: 2, lastObservedTime: '2024-05-01T10:01:00.000000Z' },
  reportingController: 'plat.io/namespace-controller',
  reportingInstance: 'cm-0',
  action: 'Delete',
  reason: 'ContentDeletionFailed',
  regarding: { kind: 'Pod', namespace: 'team-a', name: 'web-0' },
  related: { kind: 'Node', name: 'n' },
  note: 'could not delete',
  type: 'Warning',
  deprecatedSource: { component: 'c', host: 'h' },
  deprecatedFirstTimestamp: '2024-05-01T10:00:00Z',
  deprecatedLastTimestamp: '2024-05-01T10:01:00Z',
  deprecatedCount: 2,
};

const stored: Event = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web-0.1', namespace: 'team-a' },
  involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'web-0' },
  reason: 'ContentDeletionFailed',
  message: 'could not delete',
  source: { component: 'c', host: 'h' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:01:00Z',
  count: 2,
  type: 'Warning',
  eventTime: '2024-05-01T10:00:00.000001Z',
  series: { count: 2, lastObservedTime: '2024-05-01T10:01:00.000000Z' },
  action: 'Delete',
  related: { kind: 'Node', name: 'n' },
  reportingComponent: 'plat.io/namespace-controller',
  reportingInstance: 'cm-0',
};

test('events v1 <-> core v1: every field is carried, in each shape\'s field order', () => {
  const core = toCoreEvent(served);
  assert.deepStrictEqual(core, stored);
  assert.deepEqual(Object.keys(core), Object.keys(stored));
  const back = fromCoreEvent(core);
  assert.deepStrictEqual(back, served);
  assert.deepEqual(Object.keys(back), Object.keys(served));
});

test('events v1 <-> core v1: absent fields stay absent, and the conversions copy', () => {
  const sparse: EventsAPIEvent = { metadata: { name: 'e', namespace: 'default' }, note: 'n' };
  const core = toCoreEvent(sparse);
  assert.deepStrictEqual(core, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, message: 'n' });
  core.metadata.name = 'changed';
  assert.equal(sparse.metadata.name, 'e');
});

test('events v1: a served event is valid; defaults give the structs Go writes', () => {
  const { object, errors } = create(eventsAPIEventDefinition, { ...served, deprecatedSource: undefined, deprecatedFirstTimestamp: undefined, deprecatedLastTimestamp: undefined, deprecatedCount: undefined, regarding: undefined, metadata: { name: 'e', namespace: 'default' } });
  assert.deepEqual(errors, []);
  assert.deepEqual([object.regarding, object.deprecatedSource], [{}, {}]);
});

// Strict rules through this group, reported by the internal Event's field names as upstream's are.
const cases: { name: string; event: EventsAPIEvent; want: string[] }[] = [
  {
    name: 'the deprecated fields must be unset',
    event: served,
    want: [
      'firstTimestamp: Invalid value: "": needs to be unset',
      'lastTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ],
  },
  {
    name: 'an event with nothing but metadata',
    event: { metadata: { name: 'e', namespace: 'team-a' } },
    want: [
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
      'eventTime: Required value',
      'type: Invalid value: "": has invalid value: ',
    ],
  },
  {
    name: 'a note too long is reported as message',
    event: { ...served, deprecatedSource: {}, deprecatedFirstTimestamp: undefined, deprecatedLastTimestamp: undefined, deprecatedCount: undefined, note: 'n'.repeat(1025) },
    want: ['message: Invalid value: "": can have at most 1024 characters'],
  },
  {
    // With an eventTime only a cluster-scoped object outside default and the system namespace is refused.
    name: 'regarding a cluster-scoped object from team-a is reported as involvedObject',
    event: { ...served, deprecatedSource: {}, deprecatedFirstTimestamp: undefined, deprecatedLastTimestamp: undefined, deprecatedCount: undefined, regarding: { kind: 'Node', name: 'n' } },
    want: ['involvedObject.namespace: Invalid value: "": does not match event.namespace'],
  },
  {
    name: 'regarding an object of another namespace is allowed',
    event: { ...served, deprecatedSource: {}, deprecatedFirstTimestamp: undefined, deprecatedLastTimestamp: undefined, deprecatedCount: undefined, regarding: { kind: 'Pod', namespace: 'x', name: 'p' } },
    want: [],
  },
];
for (const c of cases) {
  test(`events v1 validate: ${c.name}`, () => assert.deepEqual(messages(create(eventsAPIEventDefinition, c.event).errors), c.want));
}

test('events v1 update: the note is immutable; the series may grow', () => {
  const old: EventsAPIEvent = { ...served, deprecatedSource: {}, deprecatedFirstTimestamp: undefined, deprecatedLastTimestamp: undefined, deprecatedCount: undefined };
  assert.deepEqual(messages(update(eventsAPIEventDefinition, { ...old, note: 'other' }, old).errors), ['message: Invalid value: "other": field is immutable']);
  assert.deepEqual(update(eventsAPIEventDefinition, { ...old, series: { count: 3, lastObservedTime: '2024-05-01T10:02:00.000000Z' } }, old).errors, []);
});

test('events v1 field selectors: regarding.* and reportingController for core v1\'s names', () => {
  const fields = eventsAPIEventDefinition.selectableFields(served);
  assert.deepEqual(fields, {
    'regarding.kind': 'Pod',
    'regarding.namespace': 'team-a',
    'regarding.name': 'web-0',
    'regarding.uid': '',
    'regarding.apiVersion': '',
    'regarding.resourceVersion': '',
    'regarding.fieldPath': '',
    reason: 'ContentDeletionFailed',
    reportingController: 'plat.io/namespace-controller',
    source: 'c',
    type: 'Warning',
  });
});

test('events v1 columns: the same as core v1\'s, from the converted event', () => {
  const cells = eventsAPIEventDefinition.tableColumns.map((column) => column.value(served, { domain: 'plat.io' }));
  assert.deepEqual(cells.slice(1, 7), ['Warning', 'ContentDeletionFailed', 'pod/web-0', '', 'c, h', 'could not delete']);
  assert.equal(cells[8], 2);
});

test('events v1 is stored as core v1 Events, under their keys', () => {
  const storedAs = eventsAPIEventDefinition.storedAs;
  assert.deepEqual([storedAs.group, storedAs.version, storedAs.kind, storedAs.resource], ['', 'v1', 'Event', 'events']);
  assert.deepStrictEqual(storedAs.fromStored(storedAs.toStored(served)), served);
});
