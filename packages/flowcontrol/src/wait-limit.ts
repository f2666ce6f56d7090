// How long a request may wait in its queue (upstream's getRequestWaitContext): a quarter of the
// time its deadline allows from when it was received, or, with no deadline, the server's default
// (--request-timeout/4, 15 s at the default 60 s); never more than a minute. The caller aborts
// the wait when it expires, and the request is answered 429.

const HARD_LIMIT_MS = 60_000;

/** The default wait: a quarter of --request-timeout. */
export function defaultRequestWaitLimitMs(requestTimeoutMs: number): number {
  return requestTimeoutMs / 4;
}

/** The time (on the same clock as receivedAt) at which the request stops waiting. */
export function requestWaitDeadline(receivedAt: number, deadline: number | undefined, defaultWaitLimitMs: number): number {
  const limit = Math.min(deadline === undefined ? defaultWaitLimitMs : (deadline - receivedAt) / 4, HARD_LIMIT_MS);
  return receivedAt + limit;
}
