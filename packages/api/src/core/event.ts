// Event (core v1, namespaced): a report of something that happened to an object. The one stored
// form of Events: events.{domain}/v1 Event is served over these (events/event.ts). Upstream 1.28's
// validation runs on its internal Event for both groups, lenient through core v1 (clients of old
// write anything plausible) and strict through events.{domain}/v1; both live here, by the field
// paths of the internal Event, which is why events.{domain}/v1 errors name `message` and
// `involvedObject`. Events live --event-ttl after their last write (1h by default).
import { isDNS1123Subdomain, isQualifiedName, nameIsPathSegment, invalid, newPath, required, type FieldError } from '@plat/apimachinery';
import type { JSONSchema, KubeObject, ResourceDefinition, TableColumn } from '@plat/registry';
import { isDeepStrictEqual } from 'node:util';
import { kindSchema } from '../common/object-meta-schema.js';
import { objectReferenceSchema, type ObjectReference } from '../common/object-reference.js';
import { integerField, objectSchema, stringField, timeField } from '../common/schema.js';
import { humanDuration } from '../common/table.js';
import { formatMicroTime, formatTime, isZeroTime } from '../common/time.js';
import { allVerbs } from '../common/verbs.js';
import { systemNamespacePrefix } from '../system-namespaces.js';

export interface EventSource {
  component?: string;
  host?: string;
}

export interface EventSeries {
  count?: number;
  /** A MicroTime. */
  lastObservedTime?: string;
}

export interface Event extends KubeObject {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  /** Times (whole seconds). */
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  /** Normal or Warning (anything through core v1). */
  type?: string;
  /** A MicroTime: set by the events.{domain}/v1 API's clients, who leave the old fields unset. */
  eventTime?: string;
  series?: EventSeries;
  action?: string;
  related?: ObjectReference;
  /** The internal Event's reportingController, under its core v1 JSON name. */
  reportingComponent?: string;
  reportingInstance?: string;
}

// Upstream's limits on what an events.{domain}/v1 client (or any event with an eventTime) writes.
const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

export const eventSourceSchema: JSONSchema = objectSchema('The component reporting an event.', {
  component: stringField('Component from which the event is generated.'),
  host: stringField('Node name on which the event is generated.'),
});

export const eventSeriesSchema: JSONSchema = objectSchema('A series of events: something that happened again and again for some time.', {
  count: integerField('Number of occurrences in this series up to the last heartbeat time.'),
  lastObservedTime: timeField('Time of the last occurrence observed (a MicroTime).'),
});

/** Whether two values are the same once what Go would not tell apart (absent, "", 0, {}) is dropped. */
function sameValue(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(significant(a), significant(b));
}

function significant(value: unknown): unknown {
  if (value === null || value === undefined || value === '' || value === 0 || value === false) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const kept = significant(field);
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length ? out : undefined;
}

/** Upstream's legacy validation, which every event passes whichever group it is written through. */
function validateLegacy(event: Event, domain: string): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = event.metadata.namespace ?? '';
  const involvedNamespace = event.involvedObject?.namespace ?? '';
  const mismatch = (): FieldError => invalid(newPath('involvedObject', 'namespace'), involvedNamespace, 'does not match event.namespace');
  if (isZeroTime(event.eventTime)) {
    // An event about a cluster-scoped object lives in "default" (or, from old clients, nowhere).
    if (!involvedNamespace) {
      if (namespace !== '' && namespace !== 'default') errors.push(mismatch());
    } else if (namespace !== involvedNamespace) {
      errors.push(mismatch());
    }
  } else {
    if (!involvedNamespace && namespace !== 'default' && namespace !== `${systemNamespacePrefix(domain)}-system`) errors.push(mismatch());
    const controller = event.reportingComponent ?? '';
    if (!controller) errors.push(required(newPath('reportingController')));
    for (const message of isQualifiedName(controller)) errors.push(invalid(newPath('reportingController'), controller, message));
    const bounded = (path: string, value: string | undefined, limit: number, needed: boolean): void => {
      if (needed && !value) errors.push(required(newPath(path)));
      if ((value ?? '').length > limit) errors.push(invalid(newPath(path), '', `can have at most ${limit} characters`));
    };
    bounded('reportingInstance', event.reportingInstance, REPORTING_INSTANCE_LIMIT, true);
    bounded('action', event.action, ACTION_LIMIT, true);
    bounded('reason', event.reason, REASON_LIMIT, true);
    bounded('message', event.message, NOTE_LIMIT, false);
  }
  for (const message of isDNS1123Subdomain(namespace)) errors.push(invalid(newPath('namespace'), namespace, message));
  return errors;
}

function validateSeries(event: Event): FieldError[] {
  const series = event.series;
  if (!series) return [];
  const errors: FieldError[] = [];
  if ((series.count ?? 0) < 2) errors.push(invalid(newPath('series.count'), '', 'should be at least 2'));
  if (isZeroTime(series.lastObservedTime)) errors.push(required(newPath('series.lastObservedTime')));
  return errors;
}

/**
 * An event's errors on create: legacy rules always; with `strict` (written through
 * events.{domain}/v1) also a series, an eventTime, type Normal or Warning and none of the old fields.
 */
export function validateEvent(event: Event, domain: string, strict: boolean): FieldError[] {
  const errors = validateLegacy(event, domain);
  if (!strict) return errors;
  errors.push(...validateSeries(event));
  if (isZeroTime(event.eventTime)) errors.push(required(newPath('eventTime')));
  if (event.type !== 'Normal' && event.type !== 'Warning') errors.push(invalid(newPath('type'), '', `has invalid value: ${event.type ?? ''}`));
  if (!isZeroTime(event.firstTimestamp)) errors.push(invalid(newPath('firstTimestamp'), '', 'needs to be unset'));
  if (!isZeroTime(event.lastTimestamp)) errors.push(invalid(newPath('lastTimestamp'), '', 'needs to be unset'));
  if (event.count) errors.push(invalid(newPath('count'), '', 'needs to be unset'));
  if (event.source?.component || event.source?.host) errors.push(invalid(newPath('source'), '', 'needs to be unset'));
  return errors;
}

/**
 * An event's errors on update: legacy rules always; with `strict`, a changed series is checked and
 * everything but the series and metadata is immutable. (Upstream checks `reason` twice, so a changed
 * reason is reported twice; so it is here.)
 */
export function validateEventUpdate(event: Event, old: Event, domain: string, strict: boolean): FieldError[] {
  const errors = validateLegacy(event, domain);
  if (!strict) return errors;
  if (!sameValue(event.series, old.series)) errors.push(...validateSeries(event));
  const immutable: [path: string, value: unknown, before: unknown][] = [
    ['involvedObject', event.involvedObject, old.involvedObject],
    ['reason', event.reason, old.reason],
    ['message', event.message, old.message],
    ['source', event.source, old.source],
    ['firstTimestamp', event.firstTimestamp, old.firstTimestamp],
    ['lastTimestamp', event.lastTimestamp, old.lastTimestamp],
    ['count', event.count, old.count],
    ['reason', event.reason, old.reason],
    ['type', event.type, old.type],
    ['eventTime', event.eventTime, old.eventTime],
    ['action', event.action, old.action],
    ['related', event.related, old.related],
    ['reportingController', event.reportingComponent, old.reportingComponent],
    ['reportingInstance', event.reportingInstance, old.reportingInstance],
  ];
  for (const [path, value, before] of immutable) {
    if (!sameValue(value, before)) errors.push(invalid(newPath(path), value ?? '', 'field is immutable'));
  }
  return errors;
}

/** Times as upstream writes them; the structs Go always writes, present. */
function defaultEvent(event: Event): void {
  event.involvedObject ??= {};
  event.source ??= {};
  if (event.firstTimestamp) event.firstTimestamp = formatTime(event.firstTimestamp);
  if (event.lastTimestamp) event.lastTimestamp = formatTime(event.lastTimestamp);
  if (event.eventTime) event.eventTime = formatMicroTime(event.eventTime);
  if (event.series?.lastObservedTime) event.series.lastObservedTime = formatMicroTime(event.series.lastObservedTime);
}

/** The fields of an event a field selector may name (upstream's ToSelectableFields), metadata aside. */
export function eventSelectableFields(event: Event): Record<string, string> {
  const involved = event.involvedObject ?? {};
  return {
    'involvedObject.kind': involved.kind ?? '',
    'involvedObject.namespace': involved.namespace ?? '',
    'involvedObject.name': involved.name ?? '',
    'involvedObject.uid': involved.uid ?? '',
    'involvedObject.apiVersion': involved.apiVersion ?? '',
    'involvedObject.resourceVersion': involved.resourceVersion ?? '',
    'involvedObject.fieldPath': involved.fieldPath ?? '',
    reason: event.reason ?? '',
    reportingComponent: event.reportingComponent ?? '',
    // Events of the new API have no source: the reporting controller stands for it.
    source: event.source?.component || event.reportingComponent || '',
    type: event.type ?? '',
  };
}

/** Age of a time as kubectl shows it; "<unknown>" when unset. */
function since(time: string | undefined, now: number): string {
  if (isZeroTime(time)) return '<unknown>';
  const at = Date.parse(time!);
  return Number.isNaN(at) ? '<unknown>' : humanDuration(now - at);
}

/** The cells upstream's event printer computes, for one event at `now`. */
function eventRow(event: Event, now: number) {
  const first = isZeroTime(event.firstTimestamp) ? since(event.eventTime, now) : since(event.firstTimestamp, now);
  let last = isZeroTime(event.lastTimestamp) ? first : since(event.lastTimestamp, now);
  let count = event.count ?? 0;
  if (event.series) {
    last = since(event.series.lastObservedTime, now);
    count = event.series.count ?? 0;
  } else if (count === 0) {
    // A singleton event of the new API has no count.
    count = 1;
  }
  const involved = event.involvedObject ?? {};
  const kind = (involved.kind ?? '').toLowerCase();
  const component = event.source?.component || event.reportingComponent || '';
  const instance = event.source?.host || event.reportingInstance || '';
  return {
    first,
    last,
    count,
    object: involved.name ? `${kind}/${involved.name}` : kind,
    source: instance ? `${component}, ${instance}` : component,
  };
}

/** The columns of `kubectl get events`, as upstream's printer (the wide ones at priority 1). */
export function eventColumns(now: () => number = Date.now): TableColumn<Event>[] {
  const column = (name: string, description: string, priority: number, value: (event: Event) => unknown, format?: string): TableColumn<Event> => ({
    name,
    type: 'string',
    ...(format && { format }),
    description,
    priority,
    value,
  });
  return [
    column('Last Seen', 'The time at which the most recent occurrence of this event was recorded.', 0, (e) => eventRow(e, now()).last),
    column('Type', 'Type of this event (Normal, Warning), new types could be added in the future', 0, (e) => e.type ?? ''),
    column('Reason', 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.', 0, (e) => e.reason ?? ''),
    column('Object', 'The object that this event is about.', 0, (e) => eventRow(e, now()).object),
    column('Subobject', 'The field of the object the event is about, such as spec.containers{name}.', 1, (e) => e.involvedObject?.fieldPath ?? ''),
    column('Source', 'The component reporting this event.', 1, (e) => eventRow(e, now()).source),
    column('Message', 'A human-readable description of the status of this operation.', 0, (e) => (e.message ?? '').trim()),
    column('First Seen', 'The time at which the event was first recorded.', 1, (e) => eventRow(e, now()).first),
    column('Count', 'The number of times this event has occurred.', 1, (e) => eventRow(e, now()).count),
    column('Name', 'Name must be unique within a namespace.', 1, (e) => e.metadata.name ?? '', 'name'),
  ];
}

/** What the server sets for Events: --event-ttl, in whole seconds (0: they live until deleted). */
export interface EventSettings {
  ttlSeconds: number;
}

/** Core v1 Event, living `ttlSeconds` after each write. */
export const eventDefinition = ({ ttlSeconds }: EventSettings) => ({
  group: '',
  version: 'v1',
  kind: 'Event',
  // Upstream's zero value holds these structs (non-pointer fields).
  zeroValue: { involvedObject: {}, source: {} },
  resource: 'events',
  singularName: 'event',
  shortNames: ['ev'],
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema(
    'A report of an event somewhere in the cluster. Events have a limited retention time.',
    {
      involvedObject: objectReferenceSchema,
      reason: stringField('A short, machine understandable string that gives the reason for the transition into the object\'s current status.'),
      message: stringField('A human-readable description of the status of this operation.'),
      source: eventSourceSchema,
      firstTimestamp: timeField('The time at which the event was first recorded.'),
      lastTimestamp: timeField('The time at which the most recent occurrence of this event was recorded.'),
      count: integerField('The number of times this event has occurred.'),
      type: stringField('Type of this event (Normal, Warning), new types could be added in the future.'),
      eventTime: timeField('Time when this Event was first observed (a MicroTime).'),
      series: eventSeriesSchema,
      action: stringField('What action was taken/failed regarding to the Regarding object.'),
      related: objectReferenceSchema,
      reportingComponent: stringField('Name of the controller that emitted this Event.'),
      reportingInstance: stringField('ID of the controller instance.'),
    },
    ['metadata', 'involvedObject'],
  ),
  // Upstream checks only that an event's name is a path segment (its strategy runs no ObjectMeta validation).
  validateName: (name, prefix) => nameIsPathSegment(name, prefix),
  strategy: {
    default: defaultEvent,
    validate: (event, { domain }) => validateEvent(event, domain, false),
    validateUpdate: (event, old, { domain }) => validateEventUpdate(event, old, domain, false),
  },
  selectableFields: eventSelectableFields,
  tableColumns: eventColumns(),
  allowCreateOnUpdate: true,
  timeToLive: () => ttlSeconds,
  protobuf: { message: 'k8s.io.api.core.v1.Event' },
}) satisfies ResourceDefinition<Event>;
