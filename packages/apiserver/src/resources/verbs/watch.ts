// GET with watch: a chunked stream of JSON watch events (conventions 4.7 and 6), ended by
// timeoutSeconds, by the client going away, or by graceful shutdown.
import { once } from 'node:events';
import { startWatch } from '@plat/registry';
import { listQuery } from './list.js';
import type { VerbScope } from './scope.js';

/** Upstream's default for watches without timeoutSeconds: 30 to 60 minutes, spread at random. */
const MIN_REQUEST_TIMEOUT_S = 1800;

export async function watchObjects({ ctx, info, served, query, services }: VerbScope): Promise<void> {
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

  const res = ctx.res;
  ctx.respond = false;
  ctx.status = 200;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  const stop = (): void => watch.stop();
  const unregister = services.registerLongRunning(res, stop);
  const timer = setTimeout(stop, Math.max(0, timeoutSeconds) * 1000);
  res.on('close', stop);
  try {
    for await (const event of watch) {
      if (!res.write(`${JSON.stringify(event)}\n`)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (res.destroyed) break;
    }
  } finally {
    clearTimeout(timer);
    stop();
    unregister();
    if (!res.destroyed) res.end();
  }
}
