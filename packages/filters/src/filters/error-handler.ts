// The one place that turns a thrown error into a response: StatusErrors as they are, anything else
// as a 500 (always a bug, so logged with its stack).
import { isStatusError, newInternalError } from '@plat/apimachinery';
import type { Logger } from 'pino';
import type { Middleware } from '../context.js';
import { writeStatus } from '../status-response.js';

export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const statusError = isStatusError(error) ? error : newInternalError(error);
      if (!isStatusError(error)) {
        logger.error({ err: error, method: ctx.method, uri: ctx.url }, 'internal error');
        ctx.state.audit?.notePanic(error);
      }
      if (ctx.headerSent || !ctx.writable) {
        // Too late for a Status: the client sees the connection end early instead of a clean end.
        ctx.res.destroy();
        return;
      }
      // Headers set by the failed handler do not describe the error response (Connection does:
      // the server sets it while shutting down).
      for (const name of ctx.res.getHeaderNames()) if (name !== 'connection') ctx.res.removeHeader(name);
      writeStatus(ctx, statusError);
    }
  };
}
