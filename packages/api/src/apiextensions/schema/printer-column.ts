// The cells of a CRD's additionalPrinterColumns (upstream's customresource tableconvertor): the
// column's jsonPath as a template `{<jsonPath>}`, its first result, formatted by the column's type.
// A path that finds nothing, fails, or a value of another type gives an empty cell (null).
import type { CustomResourceColumnDefinition } from '../types.js';
import { humanDuration } from '../../common/table.js';
import { canonicalJSON, goNumber, isInt64 } from './go-format.js';
import { findResults, parseJSONPath, type JSONPathTemplate } from './json-path.js';

const templates = new Map<string, JSONPathTemplate | Error>();

function templateOf(jsonPath: string): JSONPathTemplate | Error {
  let template = templates.get(jsonPath);
  if (!template) {
    try {
      template = parseJSONPath(`{${jsonPath}}`);
    } catch (error) {
      template = error as Error;
    }
    templates.set(jsonPath, template);
  }
  return template;
}

/**
 * Throws `unrecognized column definition "<jsonPath>"` when upstream cannot parse the column's path
 * (its table then falls back to the default columns).
 */
export function checkPrinterColumnPath(jsonPath: string): void {
  if (templateOf(jsonPath) instanceof Error) throw new Error(`unrecognized column definition ${JSON.stringify(jsonPath)}`);
}

// Go's encoding/json escapes these for HTML safety.
const htmlSafe = (json: string): string => json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

/** A string column's text: as client-go's jsonpath prints one result. */
function printed(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'object') return htmlSafe(canonicalJSON(value));
  if (typeof value === 'number') return goNumber(value);
  return String(value);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A date column's cell: the age of an RFC 3339 time, "<unknown>" for none, "<invalid>" for another text. */
function age(value: string, now: number): string {
  if (value === '' || value === 'null') return '<unknown>';
  const at = RFC3339.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) return '<invalid>';
  return humanDuration(now - at);
}

/** The cell of `column` for `object` (see the top of this file); `now` in milliseconds ages a date. */
export function printerColumnValue(object: unknown, column: Pick<CustomResourceColumnDefinition, 'jsonPath' | 'type'>, now: number = Date.now()): unknown {
  const template = templateOf(column.jsonPath);
  if (template instanceof Error) return null;
  let results: unknown[][];
  try {
    results = findResults(template, object);
  } catch {
    return null;
  }
  const first = results[0];
  if (!first?.length) return null;
  const value = first[0];
  if (column.type === 'string') return printed(value);
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'integer':
      return typeof value === 'number' ? (isInt64(value) ? value : Math.trunc(value)) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? age(value, now) : null;
    default:
      return null;
  }
}
