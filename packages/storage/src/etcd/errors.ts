// Turns etcd client failures into StorageErrors: compaction and future revisions by their mvcc
// messages (the client does not type them), and anything connection-shaped as Unavailable.
import { StorageError, gone, tooLargeResourceVersion, unavailable } from '../errors.js';

const COMPACTED = 'required revision has been compacted';
const FUTURE = 'required revision is a future revision';

export const isCompactedError = (error: unknown): boolean => error instanceof Error && error.message.includes(COMPACTED);
const isFutureRevisionError = (error: unknown): boolean =>
  error instanceof Error && error.message.includes(FUTURE);

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
  const message = error instanceof Error ? error.message : String(error);
  return unavailable(`etcd request failed: ${message}`, error);
}
