// Query parameters of resource requests (conventions 4.3), parsed as upstream's parameter codec
// does: Go's boolean and integer syntax, with a 400 naming the parameter for anything else.
import { invalid, newBadRequest, newInvalid, newPath, notSupported, tooLong } from '@plat/apimachinery';

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

  integer(name: string): number | undefined {
    const value = this.params.get(name);
    if (value === null || value === '') return undefined;
    if (!/^[+-]?\d{1,15}$/.test(value)) {
      throw newBadRequest(`invalid value for parameter ${name}: ${JSON.stringify(value)}: expected an integer`);
    }
    return Number(value);
  }
}

/** dryRun: absent, or `All` (4.10). Anything else is refused, as upstream's validation does. */
export function parseDryRun(query: Query): boolean {
  const values = query.all('dryRun');
  if (values.length === 0) return false;
  for (const value of values) {
    if (value !== 'All') throw newBadRequest(`Invalid dry run value: ${JSON.stringify(value)}; supported values: "All"`);
  }
  return true;
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** fieldValidation (4.9): Warn by default; other values are a 400 as upstream. */
export function parseFieldValidation(query: Query): FieldValidation {
  const value = query.string('fieldValidation');
  if (value === undefined || value === '') return 'Warn';
  if (value === 'Ignore' || value === 'Warn' || value === 'Strict') return value;
  throw newBadRequest(`fieldValidation parameter unsupported: ${value}. Valid values are Ignore, Warn, Strict`);
}

export function parsePropagationPolicy(value: string | undefined, domain: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const supported = ['Orphan', 'Background', 'Foreground'];
  if (!supported.includes(value)) {
    throw newInvalid({ group: `meta.${domain}`, kind: 'DeleteOptions' }, '', [
      notSupported(newPath('propagationPolicy'), value, supported),
    ]);
  }
  return value;
}

/** Upstream's limit on a field manager's name. */
const MAX_FIELD_MANAGER_LENGTH = 128;

/**
 * fieldManager (4.11), validated as upstream's CreateOptions / UpdateOptions / PatchOptions: at
 * most 128 printable characters. Absent: undefined (the caller infers one).
 */
export function parseFieldManager(query: Query, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', domain: string): string | undefined {
  const value = query.string('fieldManager');
  if (value === undefined || value === '') return undefined;
  const path = newPath('fieldManager');
  const errors = [];
  if (value.length > MAX_FIELD_MANAGER_LENGTH) errors.push(tooLong(path, value, MAX_FIELD_MANAGER_LENGTH));
  if (/[^\x20-\x7e\u00a0-\uffff]/u.test(value)) errors.push(invalid(path, value, 'must only contain printable characters'));
  if (errors.length) throw newInvalid({ group: `meta.${domain}`, kind: optionsKind }, '', errors);
  return value;
}
