// What the agent's parts take from the client package, and the error tests they share.
import { isStatusError } from '@plat/apimachinery';

export { Backoff, jitter, microTime, sleep, type Logger, type ResourceClient } from '@plat/client';

/** Upstream's jitter on the heartbeat loops (wait.JitterUntil's 0.04), so that nodes started together drift apart. */
export const HEARTBEAT_JITTER = 0.04;

export const isNotFound = (error: unknown): boolean => isStatusError(error) && error.code === 404;
export const isAlreadyExists = (error: unknown): boolean => isStatusError(error, 'AlreadyExists');
export const isNotFoundOrConflict = (error: unknown): boolean => isStatusError(error) && (error.code === 404 || error.code === 409);
