// Event (events.{domain}/v1, namespaced): the newer shape of the core group's Events, served over
// the same objects. Upstream keeps one internal Event and stores it once under the core group's
// `events`; this group converts to and from it (regarding is involvedObject, note is message,
// reportingController is reportingComponent, the deprecated* fields are the old ones), so an event
// written through either group is read through both. Its rules are core v1's strict ones, judged on
// the converted event (and so reported by the internal field names, as upstream's are).
import type { KubeObject, ResourceDefinition, TableColumn } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { objectReferenceSchema, type ObjectReference } from '../common/object-reference.js';
import { integerField, stringField, timeField } from '../common/schema.js';
import { formatMicroTime, formatTime } from '../common/time.js';
import { allVerbs } from '../common/verbs.js';
import {
  eventColumns,
  eventSelectableFields,
  eventSeriesSchema,
  eventSourceSchema,
  type EventSettings,
  validateEvent,
  validateEventUpdate,
  type Event,
  type EventSeries,
  type EventSource,
} from '../core/event.js';

export interface EventsAPIEvent extends KubeObject {
  /** A MicroTime; required. */
  eventTime?: string;
  series?: EventSeries;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: EventSource;
  deprecatedFirstTimestamp?: string;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}

/** Copies the fields `names` maps from `from` into `to`, under their names there; absent ones stay absent. */
function carry(from: Record<string, unknown>, to: Record<string, unknown>, names: readonly (readonly [string, string])[]): void {
  for (const [source, target] of names) {
    const value = from[source];
    if (value !== undefined) to[target] = structuredClone(value);
  }
}

// Each field of this group's Event and the core v1 field it is, in this group's field order.
const fieldMap = [
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['reportingController', 'reportingComponent'],
  ['reportingInstance', 'reportingInstance'],
  ['action', 'action'],
  ['reason', 'reason'],
  ['regarding', 'involvedObject'],
  ['related', 'related'],
  ['note', 'message'],
  ['type', 'type'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
] as const;
const reversed = fieldMap.map(([served, stored]) => [stored, served] as const);
// The core group's field order, for the stored form.
const coreOrder = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'series',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
] as const;

/** The core v1 Event an events.{domain}/v1 Event is (a new object). */
export function toCoreEvent(event: EventsAPIEvent): Event {
  const fields: Record<string, unknown> = {};
  carry(event as unknown as Record<string, unknown>, fields, fieldMap);
  const core: Record<string, unknown> = { apiVersion: 'v1', kind: 'Event', metadata: structuredClone(event.metadata) };
  for (const name of coreOrder) if (fields[name] !== undefined) core[name] = fields[name];
  return core as unknown as Event;
}

/** The events.{domain}/v1 Event a core v1 Event is (a new object); apiVersion and kind are the caller's. */
export function fromCoreEvent(event: Event): EventsAPIEvent {
  const served: Record<string, unknown> = { metadata: structuredClone(event.metadata) };
  carry(event as unknown as Record<string, unknown>, served, reversed);
  return served as unknown as EventsAPIEvent;
}

/** Times as upstream writes them; the structs Go always writes, present. */
function defaultEvent(event: EventsAPIEvent): void {
  event.regarding ??= {};
  event.deprecatedSource ??= {};
  if (event.eventTime) event.eventTime = formatMicroTime(event.eventTime);
  if (event.series?.lastObservedTime) event.series.lastObservedTime = formatMicroTime(event.series.lastObservedTime);
  if (event.deprecatedFirstTimestamp) event.deprecatedFirstTimestamp = formatTime(event.deprecatedFirstTimestamp);
  if (event.deprecatedLastTimestamp) event.deprecatedLastTimestamp = formatTime(event.deprecatedLastTimestamp);
}

/** This group's field selector names for core v1's (upstream's field label conversion). */
function selectableFields(event: EventsAPIEvent): Record<string, string> {
  const core = eventSelectableFields(toCoreEvent(event));
  const fields: Record<string, string> = {};
  for (const name of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) {
    fields[`regarding.${name}`] = core[`involvedObject.${name}`]!;
  }
  return { ...fields, reason: core.reason!, reportingController: core.reportingComponent!, source: core.source!, type: core.type! };
}

/** The same columns as core v1's, from the converted event (upstream prints the internal Event for both). */
const columns: TableColumn<EventsAPIEvent>[] = eventColumns().map((column) => ({ ...column, value: (event, context) => column.value(toCoreEvent(event), context) }));

/** events.{domain}/v1 Event, living --event-ttl after each write as the core Event it is stored as. */
export const eventsAPIEventDefinition = ({ ttlSeconds }: EventSettings) => ({
  group: 'events.{domain}',
  version: 'v1',
  kind: 'Event',
  zeroValue: { regarding: {}, deprecatedSource: {} },
  resource: 'events',
  singularName: 'event',
  shortNames: ['ev'],
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema(
    'A report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time.',
    {
      eventTime: timeField('The time when this Event was first observed (a MicroTime). It is required.'),
      series: eventSeriesSchema,
      reportingController: stringField('The name of the controller that emitted this Event.'),
      reportingInstance: stringField('The ID of the controller instance; at most 128 characters.'),
      action: stringField('What action was taken/failed regarding to the regarding object; at most 128 characters.'),
      reason: stringField('Why the action was taken; at most 128 characters.'),
      regarding: objectReferenceSchema,
      related: objectReferenceSchema,
      note: stringField('A human-readable description of the status of this operation; at most 1kB.'),
      type: stringField('The type of this event (Normal, Warning).'),
      deprecatedSource: eventSourceSchema,
      deprecatedFirstTimestamp: timeField('The deprecated field assuring backward compatibility with core.v1 Event type.'),
      deprecatedLastTimestamp: timeField('The deprecated field assuring backward compatibility with core.v1 Event type.'),
      deprecatedCount: integerField('The deprecated field assuring backward compatibility with core.v1 Event type.'),
    },
    ['eventTime'],
  ),
  strategy: {
    default: defaultEvent,
    validate: (event, { domain }) => validateEvent(toCoreEvent(event), domain, true),
    validateUpdate: (event, old, { domain }) => validateEventUpdate(toCoreEvent(event), toCoreEvent(old), domain, true),
  },
  selectableFields,
  tableColumns: columns,
  allowCreateOnUpdate: true,
  timeToLive: () => ttlSeconds,
  storedAs: {
    group: '',
    version: 'v1',
    kind: 'Event',
    resource: 'events',
    toStored: (event) => toCoreEvent(event),
    fromStored: (stored) => fromCoreEvent(stored as Event),
  },
  protobuf: { message: 'k8s.io.api.events.v1.Event' },
}) satisfies ResourceDefinition<EventsAPIEvent>;
