// What the agent's parts take from the client package, and the error tests they share.
import { isStatusError } from '@plat/apimachinery';

export { Backoff, microTime, sleep, type Logger, type ResourceClient } from '@plat/client';

export const isNotFound = (error: unknown): boolean => isStatusError(error) && error.code === 404;
export const isAlreadyExists = (error: unknown): boolean => isStatusError(error, 'AlreadyExists');
export const isNotFoundOrConflict = (error: unknown): boolean => isStatusError(error) && (error.code === 404 || error.code === 409);
