// Turns etcd client failures into StorageErrors: compaction, future revisions and writes too large
// by their messages (the client does not type them), and anything connection-shaped as Unavailable.
import { StorageError, gone, requestTooLarge, tooLargeResourceVersion, unavailable } from '../errors.js';

const COMPACTED = 'required revision has been compacted';
const FUTURE = 'required revision is a future revision';
/**
 * A write over --max-request-bytes (gRPC InvalidArgument), or over that plus 512 KiB, which etcd's
 * gRPC server refuses before reading it (ResourceExhausted, "grpc: received message larger than
 * max (N vs. M)"); a client's own send limit says "trying to send message larger than max".
 */
const TOO_LARGE = /etcdserver: request is too large|message larger than max/;

export const isCompactedError = (error: unknown): boolean => error instanceof Error && error.message.includes(COMPACTED);
const isFutureRevisionError = (error: unknown): boolean =>
  error instanceof Error && error.message.includes(FUTURE);
export const isRequestTooLargeError = (error: unknown): boolean => error instanceof Error && TOO_LARGE.test(error.message);

/**
 * @param revision the revision the failed call asked for
 * @param currentRevision looks up the store's revision for a too-large error's detail
 */
export async function toStorageError(
  error: unknown,
  revision: number,
  currentRevision: () => Promise<number>,
): Promise<StorageError> {
  if (error instanceof StorageError) return error;
  if (isCompactedError(error)) return gone(revision);
  if (isFutureRevisionError(error)) {
    const current = await currentRevision().catch(() => 0);
    return tooLargeResourceVersion(revision, current);
  }
  if (isRequestTooLargeError(error)) return requestTooLarge('', (error as Error).message, error);
  const message = error instanceof Error ? error.message : String(error);
  return unavailable(`etcd request failed: ${message}`, error);
}
