// The koa application: the filter chain every request passes (filter-chain.ts, filters/ one file
// each), ending in the handler mux.
import Koa from 'koa';
import type { RequestState } from './context.js';
import { DEFAULT_FILTER_CHAIN, type FilterContext, type NamedFilter } from './filter-chain.js';

/** Client disconnects during a stream reach koa's error event; they are not server errors. */
const ignoredErrorCodes = new Set(['ERR_STREAM_PREMATURE_CLOSE']);

/** The application: each filter of `chain` built from `context`, in order; those not configured left out. */
export function createApp(context: FilterContext, chain: readonly NamedFilter[] = DEFAULT_FILTER_CHAIN): Koa<RequestState> {
  const app = new Koa<RequestState>();
  // A listener here replaces koa's default, which prints to stderr.
  app.on('error', (error: NodeJS.ErrnoException) => {
    if (!ignoredErrorCodes.has(error.code ?? '')) context.logger.error({ err: error }, 'unhandled error while serving a request');
  });
  for (const filter of chain) {
    const middleware = filter.build(context);
    if (middleware) app.use(middleware);
  }
  return app;
}
