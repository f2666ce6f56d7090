// --request-timeout: a request that is not long-running (every verb but watch) gets a deadline, the
// shorter of the flag and the request's own `?timeout=`; past it the client gets upstream's 504
// Status at once, and whatever the handler does later answers no one (as upstream, a write may
// still complete after the 504: the client cannot tell).
import { newBadRequest, newTimeout, parseDuration } from '@plat/apimachinery';
import type { Middleware } from '../context.js';
import { writeStatus } from '../status-response.js';

/** The deadline of one request: the flag's, or the shorter one `?timeout=` asks for. */
function deadlineMs(param: string | undefined, requestTimeoutMs: number): number {
  if (param === undefined || param === '') return requestTimeoutMs;
  let asked: number;
  try {
    asked = parseDuration(param);
  } catch (error) {
    throw newBadRequest(`invalid timeout specified in the request URL - ${error instanceof Error ? error.message : String(error)}`);
  }
  // 0 or less asks for no timeout of its own: the server's applies.
  return asked > 0 ? Math.min(asked, requestTimeoutMs) : requestTimeoutMs;
}

export function timeoutFilter(requestTimeoutMs: number): Middleware {
  return async (ctx, next) => {
    if (requestTimeoutMs <= 0 || ctx.state.requestInfo.verb === 'watch') return next();
    const param = ctx.query.timeout;
    const timeoutMs = deadlineMs(Array.isArray(param) ? param[0] : param, requestTimeoutMs);
    const receivedAt = performance.now();
    ctx.state.deadline = { receivedAt, at: receivedAt + timeoutMs };
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), timeoutMs);
    });
    const work = next();
    try {
      const outcome = await Promise.race([work, expired]);
      if (outcome !== 'expired') return;
      // The handler goes on; its late failure has no response left to become.
      work.catch(() => {});
      for (const name of ctx.res.getHeaderNames()) if (name !== 'connection') ctx.res.removeHeader(name);
      ctx.state.terminated = true;
      writeStatus(ctx, newTimeout('request did not complete within the allotted timeout', 0));
    } finally {
      clearTimeout(timer);
    }
  };
}
