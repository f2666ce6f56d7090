// Query parameters of resource requests (conventions 4.3), parsed as upstream's parameter codec
// does: Go's boolean syntax (a 400 naming the parameter for anything else) and int64s exactly, as
// strconv.ParseInt reads them (a 400 in its words).
import { GoFormatted, goQuote, goStringSlice, invalid, newBadRequest, newInvalid, newPath, notSupported, tooLong, type FieldError } from '@plat/apimachinery';

export class Query {
  constructor(private readonly params: URLSearchParams) {}

  string(name: string): string | undefined {
    return this.params.get(name) ?? undefined;
  }

  all(name: string): string[] {
    return this.params.getAll(name);
  }

  has(name: string): boolean {
    return this.params.has(name);
  }

  /** Go's strconv.ParseBool; an empty value (`?watch`) counts as true, as upstream. */
  boolean(name: string): boolean | undefined {
    const value = this.params.get(name);
    if (value === null) return undefined;
    if (['', '1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
    if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
    throw newBadRequest(`invalid value for parameter ${name}: ${JSON.stringify(value)}: expected a boolean`);
  }

  /**
   * An int64 parameter, as upstream's parameter codec reads one (strconv.ParseInt, base 10): exact,
   * whatever its size. Anything else, an empty value included, is a 400 in strconv's words.
   */
  int64(name: string): bigint | undefined {
    const value = this.params.get(name);
    return value === null ? undefined : parseInt64(value);
  }
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Go's strconv.ParseInt(value, 10, 64), its errors a 400 as upstream's parameter decoding gives them. */
export function parseInt64(value: string): bigint {
  if (!/^[+-]?\d+$/.test(value)) throw newBadRequest(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  const parsed = BigInt(value);
  if (parsed < INT64_MIN || parsed > INT64_MAX) throw newBadRequest(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  return parsed;
}

/** An int64 as a number where a number holds it exactly, else as it is. */
export const exactNumber = (value: bigint): number | bigint => (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value);

/** dryRun (4.10): absent or empty for a real request, `All` for a dry run; other values are field errors. */
export function dryRunErrors(values: readonly string[]): FieldError[] {
  const unsupported = values.filter((value) => value !== '' && value !== 'All');
  return unsupported.length ? [notSupported(newPath('dryRun'), new GoFormatted(goStringSlice(values)), ['All'])] : [];
}

export const isDryRun = (values: readonly string[]): boolean => values.includes('All');

import type { FieldValidation } from '@plat/registry';

export type { FieldValidation };

/** Upstream's limit on a field manager's name. */
const MAX_FIELD_MANAGER_LENGTH = 128;

/** What a printable character is to Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols, the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's %#U of a character that is not printable: `U+0007`. */
const goCodePoint = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** fieldManager (4.11): at most 128 bytes, every character printable, as upstream's ValidateFieldManager. */
function fieldManagerErrors(value: string): FieldError[] {
  const path = newPath('fieldManager');
  const errors: FieldError[] = [];
  if (value.length > MAX_FIELD_MANAGER_LENGTH) errors.push(tooLong(path, value, MAX_FIELD_MANAGER_LENGTH));
  let position = 0;
  for (const ch of value) {
    if (!PRINTABLE.test(ch)) errors.push(invalid(path, value, `invalid character ${goCodePoint(ch)} (at position ${position})`));
    position += Buffer.byteLength(ch);
  }
  return errors;
}

const FIELD_VALIDATIONS = ['', 'Ignore', 'Strict', 'Warn'];

export interface WriteOptions {
  dryRun: boolean;
  fieldManager: string | undefined;
  /** Warn when the request gives none. */
  fieldValidation: FieldValidation;
}

/**
 * The options of a create, update or patch, checked together as upstream's Validate*Options
 * (fieldManager, dryRun, fieldValidation): one 422 on `<kind>.meta.<domain>` for whatever is wrong.
 */
export function parseWriteOptions(
  query: Query,
  optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
  domain: string,
  /** The kind's own option errors, which upstream lists first (a patch's force and apply's fieldManager). */
  leading: (fieldManager: string) => FieldError[] = () => [],
): WriteOptions {
  const fieldManager = query.string('fieldManager') ?? '';
  const dryRun = query.all('dryRun');
  const fieldValidation = query.string('fieldValidation') ?? '';
  const errors = [
    ...leading(fieldManager),
    ...fieldManagerErrors(fieldManager),
    ...dryRunErrors(dryRun),
    ...(FIELD_VALIDATIONS.includes(fieldValidation) ? [] : [notSupported(newPath('fieldValidation'), fieldValidation, FIELD_VALIDATIONS)]),
  ];
  if (errors.length) throw newInvalid({ group: `meta.${domain}`, kind: optionsKind }, '', errors);
  return {
    dryRun: isDryRun(dryRun),
    fieldManager: fieldManager || undefined,
    fieldValidation: (fieldValidation || 'Warn') as FieldValidation,
  };
}

/**
 * The options object admission sees (upstream's *metav1.CreateOptions etc., typed), from what the
 * query gave: its fields omitted where empty, as Go's JSON omits them.
 */
export function operationOptions(kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions', domain: string, fields: Record<string, unknown>): Record<string, unknown> {
  const options: Record<string, unknown> = { kind, apiVersion: `meta.${domain}/v1` };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === '' || (Array.isArray(value) && !value.length)) continue;
    options[key] = value;
  }
  return options;
}

/** What propagationPolicy may be, in upstream's order ("nil" is leaving it out). */
export const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'] as const;

