// How many seats a request takes (upstream's request.WorkEstimator, 1.28): a list as many as the
// objects it reads (100 a seat, at most 10 or the level's max seats); a write whose watchers are
// many holds extra seats for a moment after it, while their events go out; anything else, one.
// The request comes as a plain description, not as HTTP.
import { durationPerSeat, seatsTimesDuration, type WorkEstimate } from './work-estimate.js';

export interface RequestDescription {
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  /** The object's name, from the path or, for a list, from a metadata.name field selector (as RequestInfo has it). */
  name: string;
  /** The query string: the list options are read from it as upstream converts url.Values. */
  query: URLSearchParams;
}

/** What the object-count tracker knows of a resource: a count, or why not. */
export type ObjectCount = number | 'stale' | 'not-found' | 'error';

export interface WorkEstimatorConfig {
  minimumSeats: number;
  maximumSeatsLimit: number;
  objectsPerSeat: number;
  watchesPerSeat: number;
  eventAdditionalDurationMs: number;
  mutatingEnabled: boolean;
}

/** Upstream's DefaultWorkEstimatorConfig. */
export const defaultWorkEstimatorConfig: WorkEstimatorConfig = {
  minimumSeats: 1,
  maximumSeatsLimit: 10,
  objectsPerSeat: 100,
  watchesPerSeat: 10,
  eventAdditionalDurationMs: 5,
  mutatingEnabled: true,
};

export interface WorkEstimatorSources {
  /** Objects stored of a group-resource, keyed as upstream's GroupResource.String() ("events.foo.bar", "pods"). */
  objectCount(groupResource: string): ObjectCount;
  /** Watchers that a write to this request's object would notify. */
  watchCount(request: RequestDescription): number;
  /** The level's max seats (levelMaxSeats); 0 for none. */
  maxSeats(priorityLevelName: string): number;
  /** The WatchList gate (alpha, off in 1.28): a watch with sendInitialEvents=true costs as a list. */
  watchList?: boolean;
}

const MUTATING = new Set(['create', 'update', 'patch', 'delete']);

export function estimateWork(request: RequestDescription, priorityLevelName: string, sources: WorkEstimatorSources, config: WorkEstimatorConfig = defaultWorkEstimatorConfig): WorkEstimate {
  const one = (initialSeats: number): WorkEstimate => ({ initialSeats, finalSeats: 0, additionalLatencyMs: 0 });
  let maxSeats = sources.maxSeats(priorityLevelName);
  if (maxSeats === 0 || maxSeats > config.maximumSeatsLimit) maxSeats = config.maximumSeatsLimit;
  if (request.verb === 'list' || (request.verb === 'watch' && sources.watchList)) return one(listSeats(request, sources, config, maxSeats));
  if (MUTATING.has(request.verb)) return mutatingWork(request, sources, config, maxSeats);
  return one(config.minimumSeats);
}

interface ListOptions {
  labelSelector: string;
  fieldSelector: string;
  resourceVersion: string;
  resourceVersionMatch: string;
  limit: number;
  continue: string;
  sendInitialEvents: boolean | undefined;
}

/** Go's strconv.ParseInt(s, 10, 64). */
function isInt64(s: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= -(1n << 63n) && n < 1n << 63n;
}

/** As metav1.Convert_url_Values_To_v1_ListOptions: only the integers can fail; a boolean is false only for "0" or "false". */
function listOptions(query: URLSearchParams): ListOptions | undefined {
  for (const key of ['timeoutSeconds', 'limit']) {
    const v = query.get(key);
    if (v !== null && !isInt64(v)) return undefined;
  }
  const sie = query.get('sendInitialEvents');
  return {
    labelSelector: query.get('labelSelector') ?? '',
    fieldSelector: query.get('fieldSelector') ?? '',
    resourceVersion: query.get('resourceVersion') ?? '',
    resourceVersionMatch: query.get('resourceVersionMatch') ?? '',
    limit: Number(query.get('limit') ?? '0'),
    continue: query.get('continue') ?? '',
    sendInitialEvents: sie === null ? undefined : !(sie === '0' || sie.toLowerCase() === 'false'),
  };
}

/**
 * Whether the list is served from etcd rather than the watch cache (1.28, ConsistentListFromCache
 * off): a consistent read (no resourceVersion), a continuation, a limit not at resourceVersion
 * "0", or an exact resourceVersionMatch.
 */
function listsFromStorage(o: ListOptions): boolean {
  return o.resourceVersion === '' || o.continue !== '' || (o.limit > 0 && o.resourceVersion !== '0') || (o.resourceVersionMatch !== '' && o.resourceVersionMatch !== 'NotOlderThan');
}

function listSeats(request: RequestDescription, sources: WorkEstimatorSources, config: WorkEstimatorConfig, maxSeats: number): number {
  const minSeats = config.minimumSeats;
  if (request.name !== '') return minSeats;
  const o = listOptions(request.query);
  if (!o) return maxSeats;
  if (request.verb === 'watch' && !o.sendInitialEvents) return minSeats;
  const fromCache = request.verb === 'watch' || !listsFromStorage(o);
  const count = sources.objectCount(request.apiGroup === '' ? request.resource : `${request.resource}.${request.apiGroup}`);
  if (count === 'not-found') return minSeats;
  if (typeof count !== 'number') return maxSeats;
  const limit = o.limit > 0 && o.limit < count ? o.limit : count;
  // From the cache every stored object is looked at; from etcd a selector reads up to the limit
  // on top of filtering them all, and a plain list reads the page and decodes it again.
  const objects = fromCache ? count : o.fieldSelector !== '' || o.labelSelector !== '' ? count + limit : 2 * limit;
  return Math.min(maxSeats, Math.max(minSeats, Math.ceil(objects / config.objectsPerSeat)));
}

function mutatingWork(request: RequestDescription, sources: WorkEstimatorSources, config: WorkEstimatorConfig, maxSeats: number): WorkEstimate {
  const none = { initialSeats: config.minimumSeats, finalSeats: 0, additionalLatencyMs: 0 };
  if (!config.mutatingEnabled) return none;
  // A token request writes nothing that is watched.
  if (request.resource === 'serviceaccounts' && request.subresource === 'token') return none;
  const watchers = sources.watchCount(request);
  if (watchers < config.watchesPerSeat) return { ...none, initialSeats: 1 };
  let finalSeats = Math.ceil(watchers / config.watchesPerSeat);
  // The work is that of the uncapped seats; capping them stretches the time they are held.
  const finalWork = seatsTimesDuration(finalSeats, config.eventAdditionalDurationMs);
  finalSeats = Math.min(finalSeats, maxSeats);
  return { initialSeats: 1, finalSeats, additionalLatencyMs: durationPerSeat(finalWork, finalSeats) };
}
