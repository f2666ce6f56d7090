// Handlers of the non-resource paths (/healthz, /version, /metrics, ...), by exact path, as
// upstream's NonGoRestfulMux. Anything unmatched is upstream's 404 Status.
import { newGenericServerResponse } from '@plat/apimachinery';
import type { Handler, Middleware } from './context.js';

export class PathMux {
  private readonly handlers = new Map<string, Handler>();
  private resources: Handler | undefined;

  /** The handler of every resource request (request info decides which requests those are). */
  handleResources(handler: Handler): void {
    this.resources = handler;
  }

  handle(path: string, handler: Handler): void {
    if (this.handlers.has(path)) throw new Error(`a handler is already registered for ${path}`);
    this.handlers.set(path, handler);
  }

  /** The last middleware of the chain: it answers, or 404s. */
  dispatch(): Middleware {
    return async (ctx) => {
      const handler = ctx.state.requestInfo.isResourceRequest ? this.resources : this.handlers.get(ctx.path);
      if (!handler) throw newGenericServerResponse(404);
      await handler(ctx);
    };
  }
}
