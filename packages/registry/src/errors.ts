// The one place where storage failures become API errors.
import {
  StatusError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInternalError,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServiceUnavailable,
  newTimeout,
  type GroupResource,
} from '@plat/apimachinery';
import { isStorageError, type StorageError } from '@plat/storage';

/** The message upstream gives a client whose update raced another. */
export const OPTIMISTIC_LOCK_MESSAGE =
  'the object has been modified; please apply your changes to the latest version and try again';

/** Upstream's 410 for a list at a compacted resourceVersion (Exact, or a version with a limit). */
export const EXPIRED_LIST_MESSAGE = 'The resourceVersion for the provided list is too old.';

/** Upstream's 410 for an expired continue token when it has no token to offer instead. */
export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

/** Upstream's 410 for an expired continue token, offering one at the latest revision in metadata.continue. */
export const INCONSISTENT_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export interface ErrorContext {
  groupResource: GroupResource;
  name?: string;
  /** The request carried a continue token (a Gone then means the token expired). */
  continuing?: boolean;
}

export function toStatusError(error: unknown, { groupResource, name = '', continuing }: ErrorContext): unknown {
  if (error instanceof StatusError || !isStorageError(error)) return error;
  switch (error.code) {
    case 'NotFound':
      return newNotFound(groupResource, name);
    case 'AlreadyExists':
      return newAlreadyExists(groupResource, name);
    case 'Conflict':
      return newConflict(groupResource, name, withoutKey(error.message, error.key));
    case 'Gone':
      return expiredList(error, continuing);
    case 'TooLargeResourceVersion':
      return tooLargeResourceVersion(error.message);
    case 'InvalidArgument':
      return newBadRequest(error.message);
    case 'RequestTooLarge':
      // Not the client's body (that is refused over 3 MiB before decoding) but the object as
      // stored, which etcd takes up to --max-request-bytes (1.5 MiB by default).
      return newRequestEntityTooLarge(`the object is too large to store: ${error.message}`);
    case 'Unavailable':
      return newServiceUnavailable(`storage is unavailable: ${error.message}`);
    default:
      return newInternalError(error);
  }
}

/**
 * 410 Expired for a list whose history is compacted (a get reads the current state and never meets
 * one; a watch reports its own, as an ERROR event). Upstream's etcd store answers the same.
 */
function expiredList(error: StorageError, continuing = false): StatusError {
  if (!continuing) return newResourceExpired(EXPIRED_LIST_MESSAGE);
  if (!error.continue) return newResourceExpired(EXPIRED_CONTINUE_MESSAGE);
  const expired = newResourceExpired(INCONSISTENT_CONTINUE_MESSAGE);
  expired.status.metadata.continue = error.continue;
  return expired;
}

/** 504 with Retry-After, as upstream answers a resourceVersion the store has not reached. */
export function tooLargeResourceVersion(detail: string): StatusError {
  const error = newTimeout(`Too large resource version: ${detail}`, 1);
  error.status.details = {
    ...error.status.details,
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  };
  return error;
}

/** A storage conflict's message names the key it failed on, which the API does not show (the key may hold colons). */
function withoutKey(message: string, key: string): string {
  const prefix = `precondition failed for ${key}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}
