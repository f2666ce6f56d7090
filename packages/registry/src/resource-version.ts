// resourceVersion semantics (conventions 4.6): which read a get, list or watch asks for, and the
// 400 / 422 answers for the combinations the tables mark invalid.
import { forbidden, newBadRequest, newInvalid, newPath, notSupported, type FieldError } from '@plat/apimachinery';

export interface ListQuery {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
  watch?: boolean;
  sendInitialEvents?: boolean;
}

/**
 * What to read:
 * - latest: a consistent read of the current state;
 * - any: any state, possibly older than one the client saw (resourceVersion=0; a cache answers);
 * - notOlderThan: the current state, once the store has reached `revision`;
 * - exact: the state at exactly `revision` (410 when compacted);
 * - continue: the next chunk of a paged list, at the token's revision.
 */
export type ReadSemantic =
  | { kind: 'latest' }
  | { kind: 'any' }
  | { kind: 'notOlderThan'; revision: bigint }
  | { kind: 'exact'; revision: bigint }
  | { kind: 'continue' };

const UINT64_MAX = (1n << 64n) - 1n;

/**
 * A parsed resourceVersion, as upstream's versioner reads one (strconv.ParseUint, base 10): 0 for
 * "0", else a revision, exact whatever its size (a revision no store has reached is still one). A
 * 400 when it is not a number or is past uint64.
 */
export function parseResourceVersion(value: string): bigint {
  const revision = /^\d+$/.test(value) ? BigInt(value) : undefined;
  if (revision === undefined || revision > UINT64_MAX) throw newBadRequest(`invalid resource version: ${JSON.stringify(value)}`);
  return revision;
}

/**
 * A requested revision as a store takes it: exact up to Number.MAX_SAFE_INTEGER, the furthest a
 * store's revisions (JavaScript numbers) can go; past it, that bound, which no store reaches either.
 */
export const storeRevision = (revision: bigint): number => (revision > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(revision));

export function getSemantic(resourceVersion: string | undefined): ReadSemantic {
  if (!resourceVersion) return { kind: 'latest' };
  if (resourceVersion === '0') return { kind: 'any' };
  return { kind: 'notOlderThan', revision: parseResourceVersion(resourceVersion) };
}

const listOptionsKind = (group: string) => ({ group: `meta.${group}`, kind: 'ListOptions' });

/**
 * Upstream's ValidateListOptions: the cells the tables mark "Invalid" are a 422 naming each
 * problem (kind ListOptions in the meta group), for lists and watches alike. Without the WatchList
 * feature gate a watch may not ask for sendInitialEvents at all (true or false).
 */
export function validateListQuery(query: ListQuery, domain: string, watchListEnabled: boolean): void {
  const errors: FieldError[] = [];
  const matchPath = newPath('resourceVersionMatch');
  const { resourceVersion: rv, resourceVersionMatch: match } = query;
  if (query.watch) {
    if (query.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errors.push(forbidden(matchPath, 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (query.sendInitialEvents !== undefined && !watchListEnabled) {
      errors.push(forbidden(newPath('sendInitialEvents'), 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
    }
    if (match) {
      if (query.sendInitialEvents === undefined) {
        errors.push(forbidden(matchPath, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      }
      if (match !== 'NotOlderThan') errors.push(notSupported(matchPath, match, ['NotOlderThan']));
      if (query.continue) errors.push(forbidden(matchPath, 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match) {
      if (!rv) errors.push(forbidden(matchPath, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (query.continue) errors.push(forbidden(matchPath, 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') errors.push(notSupported(matchPath, match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && rv === '0') {
        errors.push(forbidden(matchPath, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      }
    }
    if (query.sendInitialEvents !== undefined) errors.push(forbidden(newPath('sendInitialEvents'), 'sendInitialEvents is forbidden for list'));
  }
  if (errors.length) throw newInvalid(listOptionsKind(domain), '', errors);
}

/** The read a list makes (validateListQuery first). */
export function listSemantic(query: ListQuery): ReadSemantic {
  const { resourceVersion: rv, resourceVersionMatch: match, limit } = query;
  if (query.continue) {
    if (rv && rv !== '0') throw newBadRequest('specifying resource version is not allowed when using continue');
    return { kind: 'continue' };
  }
  if (!rv) return { kind: 'latest' };
  if (rv === '0') return { kind: 'any' };
  const revision = parseResourceVersion(rv);
  if (match === 'Exact') return { kind: 'exact', revision };
  if (match === 'NotOlderThan') return { kind: 'notOlderThan', revision };
  // Unset match: a limit makes the version exact, as upstream's table says (a limit of 0 or below is none).
  return (limit ?? 0) > 0 ? { kind: 'exact', revision } : { kind: 'notOlderThan', revision };
}
