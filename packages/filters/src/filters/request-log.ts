// One debug log line per request, written when the response closes (so streams log their end).
import type { Logger } from 'pino';
import type { Middleware, RequestState } from '../context.js';

export function requestLogFilter(logger: Logger): Middleware {
  return async (ctx, next) => {
    if (!logger.isLevelEnabled('debug')) return next();
    const start = process.hrtime.bigint();
    ctx.res.once('close', () => {
      const state = ctx.state as Partial<RequestState>;
      logger.debug(
        {
          verb: state.requestInfo?.verb,
          uri: ctx.originalUrl,
          status: ctx.status,
          latencyMs: Number(process.hrtime.bigint() - start) / 1e6,
          user: state.user?.name,
          userAgent: ctx.get('User-Agent'),
          // HTTP/2.0 or HTTP/1.1: what the client's ALPN chose.
          protocol: `HTTP/${ctx.req.httpVersion}`,
          srcIP: ctx.socket.remoteAddress,
          // A response closed before it finished: the client went away or the server was stopped.
          ...(ctx.res.writableFinished ? {} : { aborted: true }),
        },
        'HTTP',
      );
    });
    await next();
  };
}
