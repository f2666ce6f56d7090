// Handlers of the non-resource paths (/healthz, /version, /metrics, ...), by exact path, as
// upstream's NonGoRestfulMux. Anything unmatched is upstream's 404 Status.
import { newGenericServerResponse } from '@plat/apimachinery';
import type { Handler, Middleware } from './context.js';

export class PathMux {
  private readonly handlers = new Map<string, Handler>();
  private resources: Handler | undefined;
  private readonly resolvers: ((path: string) => Handler | undefined)[] = [];

  /** The handler of every resource request (request info decides which requests those are). */
  handleResources(handler: Handler): void {
    this.resources = handler;
  }

  handle(path: string, handler: Handler): void {
    if (this.handlers.has(path)) throw new Error(`a handler is already registered for ${path}`);
    this.handlers.set(path, handler);
  }

  /**
   * Paths whose handlers are looked up when a request comes (discovery of resources that come and
   * go), after the exact paths.
   */
  handleDynamic(resolve: (path: string) => Handler | undefined): void {
    this.resolvers.push(resolve);
  }

  private lookup(path: string): Handler | undefined {
    const handler = this.handlers.get(path);
    if (handler) return handler;
    for (const resolve of this.resolvers) {
      const found = resolve(path);
      if (found) return found;
    }
    return undefined;
  }

  /** The last middleware of the chain: it answers, or 404s. */
  dispatch(): Middleware {
    return async (ctx) => {
      const handler = ctx.state.requestInfo.isResourceRequest ? this.resources : this.lookup(ctx.path);
      if (!handler) throw newGenericServerResponse(404);
      await handler(ctx);
    };
  }
}
