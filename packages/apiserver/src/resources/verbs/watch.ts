// GET with watch: a chunked stream of JSON watch events (conventions 4.7 and 6), ended by
// timeoutSeconds, by the client going away, or by graceful shutdown.
import type { ServerResponse } from 'node:http';
import { startWatch, type ApiWatchEvent, type KubeObject } from '@plat/registry';
import { parseIncludeObject, toTable } from '../table.js';
import { encodeWatchEvent } from '@plat/protobuf';
import { listQuery } from './list.js';
import type { VerbScope } from './scope.js';

/** Upstream's default for watches without timeoutSeconds: 30 to 60 minutes, spread at random. */
const MIN_REQUEST_TIMEOUT_S = 1800;

export async function watchObjects(scope: VerbScope): Promise<void> {
  const { ctx, info, served, query, services } = scope;
  const base = listQuery(query);
  // The deprecated /watch/.../{name} form and a watch of one object name it in the path.
  const fieldSelector = info.name ? [`metadata.name=${info.name}`, base.fieldSelector].filter(Boolean).join(',') : base.fieldSelector;
  const allowWatchBookmarks = query.boolean('allowWatchBookmarks') ?? false;
  const timeoutSeconds = query.integer('timeoutSeconds') ?? MIN_REQUEST_TIMEOUT_S * (1 + Math.random());
  const watch = await startWatch(
    served.store,
    info.namespace,
    { ...base, ...(fieldSelector && { fieldSelector }), allowWatchBookmarks },
    { bookmarkIntervalMs: services.bookmarkIntervalMs },
  );

  const encode = eventEncoder(scope);
  const res = ctx.res;
  ctx.respond = false;
  ctx.status = 200;
  res.writeHead(200, { 'Content-Type': encode.contentType, 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  const stop = (): void => watch.stop();
  const unregister = services.registerLongRunning(res, stop);
  const watcherLabels = { group: served.resolved.group, version: served.resolved.version, kind: served.resolved.kind };
  services.metrics.registeredWatchers.inc(watcherLabels);
  const timer = setTimeout(stop, Math.max(0, timeoutSeconds) * 1000);
  res.on('close', stop);
  try {
    for await (const event of watch) {
      const frame = encode.event(event);
      services.metrics.watchEvents.inc(watcherLabels);
      services.metrics.watchEventSizes.observe(watcherLabels, typeof frame === 'string' ? Buffer.byteLength(frame) : frame.byteLength);
      if (!res.write(frame)) await drainedOrClosed(res);
      if (res.destroyed) break;
    }
  } finally {
    clearTimeout(timer);
    stop();
    unregister();
    services.metrics.registeredWatchers.dec(watcherLabels);
    if (!res.destroyed) res.end();
  }
}

/** Watch events as JSON lines; with a Table representation each object becomes a one-row Table. */
function eventEncoder(scope: VerbScope): { contentType: string; event: (event: ApiWatchEvent) => string | Uint8Array } {
  const { representation, served, services, query } = scope;
  if (representation.type === 'protobuf') {
    // Length-framed WatchEvents, as upstream's Protobuf watch stream.
    return { contentType: `${representation.mediaType};stream=watch`, event: (event) => encodeWatchEvent(event.type, event.object as object) };
  }
  if (representation.type !== 'table') return { contentType: 'application/json', event: jsonEventLine };
  const metaGroup = `meta.${services.domain}`;
  const includeObject = parseIncludeObject(query.string('includeObject'));
  let first = true;
  return {
    contentType: `application/json;as=Table;g=${metaGroup};v=${representation.version}`,
    event: (event) => {
      if (event.type === 'ERROR' || event.type === 'BOOKMARK') return `${JSON.stringify(event)}\n`;
      // Column definitions go with the first event only, as upstream.
      const table = toTable(served.resolved, [event.object as KubeObject], {
        metaGroup,
        version: representation.version,
        includeObject,
        withoutColumns: !first,
      });
      first = false;
      return `${JSON.stringify({ type: event.type, object: table })}\n`;
    },
  };
}

/** Waits for the client to take what was written, or to go away; leaves no listener behind. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Watchers of one resource receive the same object for the same event (the watch cache shares
 * them), so each object is serialized once however many watchers it goes to.
 */
const serialized = new WeakMap<object, string>();

function jsonEventLine(event: ApiWatchEvent): string {
  const object = event.object as object;
  let body = serialized.get(object);
  if (body === undefined) {
    body = JSON.stringify(object);
    serialized.set(object, body);
  }
  return `{"type":${JSON.stringify(event.type)},"object":${body}}\n`;
}
