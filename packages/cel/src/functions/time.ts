// The standard accessors of timestamps (in UTC or a named or fixed time zone) and durations.
import { DurationType, IntType, StringType, TimestampType } from '../types.js';
import { Duration, Timestamp, type Value } from '../values.js';
import { err, fn, member, type FunctionDecl } from './overload.js';
import { calendarFields, type CalendarFields } from './time-values.js';

type Field = (c: CalendarFields) => number;

function timestampAccessor(name: string, id: string, field: Field): FunctionDecl {
  const read = (ts: Value, zone: string | undefined): Value => {
    const fields = calendarFields((ts as Timestamp).nanos, zone);
    return fields ? BigInt(field(fields)) : err(`unknown time zone ${zone}`);
  };
  return fn(
    name,
    member(id, [TimestampType], IntType, ([ts]) => read(ts!, undefined)),
    member(`${id}_with_tz`, [TimestampType, StringType], IntType, ([ts, zone]) => read(ts!, zone as string)),
  );
}

const durationAccessor = (id: string, unitNanos: bigint) =>
  member(id, [DurationType], IntType, ([d]) => (d as Duration).nanos / unitNanos);

export const timeFunctions: readonly FunctionDecl[] = [
  timestampAccessor('getFullYear', 'timestamp_to_year', (c) => c.year),
  timestampAccessor('getMonth', 'timestamp_to_month', (c) => c.month),
  timestampAccessor('getDayOfYear', 'timestamp_to_day_of_year', (c) => c.dayOfYear),
  timestampAccessor('getDate', 'timestamp_to_day_of_month_1_based', (c) => c.day),
  timestampAccessor('getDayOfMonth', 'timestamp_to_day_of_month', (c) => c.day - 1),
  timestampAccessor('getDayOfWeek', 'timestamp_to_day_of_week', (c) => c.dayOfWeek),
  {
    name: 'getHours',
    overloads: [...timestampAccessor('getHours', 'timestamp_to_hours', (c) => c.hours).overloads, durationAccessor('duration_to_hours', 3_600_000_000_000n)],
  },
  {
    name: 'getMinutes',
    overloads: [...timestampAccessor('getMinutes', 'timestamp_to_minutes', (c) => c.minutes).overloads, durationAccessor('duration_to_minutes', 60_000_000_000n)],
  },
  {
    name: 'getSeconds',
    overloads: [...timestampAccessor('getSeconds', 'timestamp_to_seconds', (c) => c.seconds).overloads, durationAccessor('duration_to_seconds', 1_000_000_000n)],
  },
  {
    name: 'getMilliseconds',
    overloads: [
      ...timestampAccessor('getMilliseconds', 'timestamp_to_milliseconds', (c) => c.milliseconds).overloads,
      durationAccessor('duration_to_milliseconds', 1_000_000n),
    ],
  },
];
