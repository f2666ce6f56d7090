// GET with watch: a chunked stream of JSON watch events (conventions 4.7 and 6), ended by
// timeoutSeconds, by the client going away, or by graceful shutdown.
import { startWatch, type ApiWatchEvent, type KubeObject } from '@plat/registry';
import { parseIncludeObject, toTable } from '../table.js';
import { encodeWatchEvent } from '@plat/protobuf';
import { listQuery, reserveListMemory } from './list.js';
import { JoinedRuns } from './joined-runs.js';
import { WatchWriter } from './watch-writer.js';
import { longTimeout, watchTimeoutMs } from './watch-timeout.js';
import type { VerbScope } from './scope.js';
import type { Http2ServerResponse } from 'node:http2';
import type { Writable } from 'node:stream';
import { isHttp2, type AnyResponse } from '@plat/filters';

export async function watchObjects(scope: VerbScope): Promise<void> {
  const { ctx, info, served, query, services } = scope;
  const base = listQuery(query);
  // The deprecated /watch/.../{name} form and a watch of one object name it in the path.
  const fieldSelector = info.name ? [`metadata.name=${info.name}`, base.fieldSelector].filter(Boolean).join(',') : base.fieldSelector;
  const allowWatchBookmarks = query.boolean('allowWatchBookmarks') ?? false;
  // Without timeoutSeconds (or with 0), upstream's spread between --min-request-timeout and twice
  // it, so that watches started together do not all end, and come back, together.
  const timeoutMs = watchTimeoutMs(query.int64('timeoutSeconds'), services.minRequestTimeoutS * (1 + Math.random()) * 1000);
  // The initial state is a list, and reserves what it holds as one until it has been written.
  const rv = base.resourceVersion ?? '';
  const initialEvents = base.sendInitialEvents ?? (rv === '' || rv === '0');
  // A current state is read as not older than the store's revision (startWatch): as the cache serves it.
  const initialQuery = { ...base, ...(fieldSelector && { fieldSelector }), ...(rv === '' && { resourceVersion: '0' }) };
  let releaseInitial = initialEvents ? reserveListMemory(scope, initialQuery, 'streamed') : undefined;
  // Priority and fairness holds the watch's seat until its initial state is written (upstream's
  // watch initialization signal); a watch from a given resourceVersion has none to write.
  const initialWritten = (): void => {
    releaseInitial?.();
    releaseInitial = undefined;
    ctx.state.watchInitialized?.();
  };
  ctx.res.once('close', initialWritten);
  const watch = await startWatch(
    served.store,
    info.namespace,
    { ...base, ...(fieldSelector && { fieldSelector }), allowWatchBookmarks },
    { bookmarkIntervalMs: services.bookmarkIntervalMs, timeoutMs },
  );

  const encode = eventEncoder(scope);
  const res = ctx.res;
  ctx.respond = false;
  ctx.status = 200;
  res.writeHead(200, { 'Content-Type': encode.contentType, 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  ctx.state.audit?.responseStarted();
  if (!initialEvents) ctx.state.watchInitialized?.();
  const stop = (): void => watch.stop();
  // Shutdown ends the stream after what is queued and, where asked for, a last bookmark.
  const unregister = services.registerLongRunning(res, () => watch.finish());
  const watcherLabels = { group: served.resolved.group, version: served.resolved.version, kind: served.resolved.kind };
  services.metrics.registeredWatchers.inc(watcherLabels);
  // Children bound once: with a thousand watchers every event is counted a thousand times.
  const eventsSent = services.metrics.watchEvents.labels(watcherLabels);
  const eventSizes = services.metrics.watchEventSizes.labels(watcherLabels);
  const { group, resource } = served.resolved;
  const groupResource = group ? `${resource}.${group}` : resource;
  const cancelTimeout = longTimeout(stop, timeoutMs);
  res.on('close', stop);
  // Over HTTP/1.1 a run goes to the socket as one chunk, framed once for all the watchers that
  // write it: the response would frame it again for each of them, in a writev of three buffers.
  // Pipelined behind another response (no socket yet), or over HTTP/1.0, the response writes.
  // Over HTTP/2 a run goes to the response's stream as it is (HTTP/2 frames it as DATA).
  const http2 = isHttp2(res as AnyResponse) ? (res as unknown as Http2ServerResponse).stream : undefined;
  const socket = !http2 && res.chunkedEncoding ? res.socket : null;
  const out: Writable = http2 ?? socket ?? res;
  const runs = socket ? encode.chunked : encode.plain;
  const gone = (): boolean => (http2 ? http2.destroyed : res.destroyed);
  const held = services.listBudget.holder();
  const writer = new WatchWriter(out, runs, {
    backlogBytes: services.watchBacklogBytes,
    gone,
    sent: ({ sizes }) => {
      for (const size of sizes) eventSizes.observe(size);
      eventsSent.inc(sizes.length);
    },
    terminate: () => {
      services.metrics.terminatedWatchers.inc({ resource: groupResource });
      res.destroy();
    },
    held: (bytes) => held.set(bytes),
    initialWritten,
  });
  res.on('close', () => {
    writer.close();
    held.release();
  });
  try {
    // A run of events is written in one go (the watch cache hands a busy resource's events on in
    // runs; upstream likewise flushes only when its channel is empty). Each event is encoded once
    // for all watchers, and each run joined once. A run is taken where it is handed over; the
    // watch's queue holds only what comes while the writer is busy (see EventQueue.batches).
    const direct = (run: readonly ApiWatchEvent[]): boolean => {
      writer.deliver(run);
      return true;
    };
    for await (const run of watch.batches(direct)) {
      writer.deliver(run);
      if (gone()) break;
    }
    writer.end();
  } finally {
    writer.close();
    held.release();
    cancelTimeout();
    stop();
    unregister();
    services.metrics.registeredWatchers.dec(watcherLabels);
    if (!gone()) res.end();
  }
}

interface EventEncoder {
  contentType: string;
  /** Runs encoded as HTTP/1.1 chunks, and as they are. */
  chunked: JoinedRuns;
  plain: JoinedRuns;
}

/** Runs of events framed by `frame`, as chunks and as they are. */
const runsOf = (frame: (event: ApiWatchEvent) => Uint8Array): { chunked: JoinedRuns; plain: JoinedRuns } => ({
  chunked: new JoinedRuns(frame, { chunked: true }),
  plain: new JoinedRuns(frame),
});

/** Watch events as JSON lines; with a Table representation each object becomes a one-row Table. */
function eventEncoder(scope: VerbScope): EventEncoder {
  const { representation, served, services, query } = scope;
  if (representation.type === 'protobuf') {
    // Length-framed WatchEvents, as upstream's Protobuf watch stream.
    return { contentType: `${representation.mediaType};stream=watch`, ...protobufRuns };
  }
  if (representation.type !== 'table') return { contentType: 'application/json', ...jsonRuns };
  const metaGroup = `meta.${services.domain}`;
  const includeObject = parseIncludeObject(query.string('includeObject'));
  let first = true;
  return {
    contentType: `application/json;as=Table;g=${metaGroup};v=${representation.version}`,
    // This watcher's own: the first event carries the columns.
    ...runsOf((event) => {
      if (event.type === 'ERROR' || event.type === 'BOOKMARK') return Buffer.from(`${JSON.stringify(event)}\n`);
      // Column definitions go with the first event only, as upstream.
      const table = toTable(served.resolved, [event.object as KubeObject], {
        metaGroup,
        version: representation.version,
        includeObject,
        withoutColumns: !first,
      });
      first = false;
      return Buffer.from(`${JSON.stringify({ type: event.type, object: table })}\n`);
    }),
  };
}

/**
 * Watchers of one resource receive the same object for the same event (the watch cache shares
 * them), so each event is encoded once however many watchers it goes to. The type is part of the
 * frame: a watcher whose selector no longer matches sees the same object as DELETED.
 */
function sharedFrames(encode: (event: ApiWatchEvent) => Uint8Array): (event: ApiWatchEvent) => Uint8Array {
  const frames = new WeakMap<object, { type: string; frame: Uint8Array }>();
  return (event) => {
    const object = event.object as object;
    const known = frames.get(object);
    if (known?.type === event.type) return known.frame;
    const frame = encode(event);
    // Bookmarks are made per watcher: nothing to share.
    if (event.type !== 'BOOKMARK') frames.set(object, { type: event.type, frame });
    return frame;
  };
}

/** Encoded and joined once for all the watchers of a representation. */
const jsonRuns = runsOf(sharedFrames((event) => Buffer.from(`{"type":${JSON.stringify(event.type)},"object":${JSON.stringify(event.object)}}\n`)));

const protobufRuns = runsOf(sharedFrames((event) => encodeWatchEvent(event.type, event.object as object)));
