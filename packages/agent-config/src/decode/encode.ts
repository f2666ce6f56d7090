// Encoding a decoded value back to plain JSON data in its schema's field order: durations as Go text, map keys sorted as Go sorts them.
import { formatDuration } from '@plat/apimachinery';
import { stringify } from 'yaml';
import type { Schema, TimeOrMetaDuration } from './schema.js';

/** The value (of the schema's type) as JSON data; unset fields are left out. */
export function encode(value: unknown, schema: Schema): unknown {
  return encodeValue(value, schema);
}

/** The value (of the schema's type) as YAML text. */
export function encodeYaml(value: unknown, schema: Schema): string {
  return stringify(encode(value, schema), { lineWidth: 0 });
}

function encodeValue(value: unknown, schema: Schema): unknown {
  if (value === undefined) return undefined;
  switch (schema.kind) {
    case 'duration':
      return formatDuration(value as number);
    case 'timeOrMetaDuration': {
      const { durationMs, serializeAsString } = value as TimeOrMetaDuration;
      return serializeAsString ? formatDuration(durationMs) : Math.round(durationMs * 1e6);
    }
    case 'list':
      return (value as unknown[]).map((item) => encodeValue(item, schema.items));
    case 'map': {
      const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return Object.fromEntries(entries.map(([key, item]) => [key, encodeValue(item, schema.values)]));
    }
    case 'object': {
      const object = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [name, fieldSchema] of Object.entries(schema.fields)) {
        const encoded = encodeValue(object[name], fieldSchema);
        if (encoded !== undefined) out[name] = encoded;
      }
      return out;
    }
    default:
      return value;
  }
}
