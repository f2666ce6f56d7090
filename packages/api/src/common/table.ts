// Table columns shared by the kinds, with ages printed as kubectl prints them (upstream's
// duration.HumanDuration: "45s", "5m12s", "3h", "12d").
import type { KubeObject, TableColumn } from '@plat/registry';

const nameDescription =
  'Name must be unique within a namespace. It is required when creating resources and cannot be updated.';
const creationDescription =
  'When the object was created, in RFC 3339 form and UTC. Set by the server; clients may not set it.';

export function nameColumn<T extends KubeObject>(): TableColumn<T> {
  return { name: 'Name', type: 'string', format: 'name', description: nameDescription, priority: 0, value: (o) => o.metadata.name ?? '' };
}

/** The time since creation, as "5m12s". */
export function ageColumn<T extends KubeObject>(now: () => number = Date.now): TableColumn<T> {
  return {
    name: 'Age',
    type: 'string',
    description: creationDescription,
    priority: 0,
    value: (o) => translateTimestampSince(o.metadata.creationTimestamp, now()),
  };
}

/** Age of a timestamp as kubectl shows it; "<unknown>" without one. */
function translateTimestampSince(timestamp: string | undefined, now: number = Date.now()): string {
  if (!timestamp) return '<unknown>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<unknown>';
  return humanDuration(now - at);
}

/** A duration in milliseconds, rounded to the two most significant units as kubectl does. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to two seconds in the future is clock skew: "0s"; beyond that the time is invalid.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}
