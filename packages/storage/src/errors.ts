// Storage errors: the typed failures every backend reports, and nothing HTTP-shaped.

export type StorageErrorCode =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'TooLargeResourceVersion'
  | 'InvalidObject'
  | 'InvalidArgument'
  /** The write is larger than the store takes in one request (etcd's --max-request-bytes). */
  | 'RequestTooLarge'
  /** The store cannot serve the value (a value transformer failed: a wrong or missing key). */
  | 'Internal'
  | 'Unavailable';

export class StorageError extends Error {
  override readonly name = 'StorageError';
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    /** The key the failure concerns, when there is one. */
    readonly key = '',
    /** For Gone: the oldest revision still available; for TooLargeResourceVersion: the current one. */
    readonly revision = 0,
    options?: { cause?: unknown; continue?: string },
  ) {
    super(message, options);
    if (options?.continue) this.continue = options.continue;
  }

  /**
   * For Gone on the next chunk of a paged list: a token that resumes the list from the same key at
   * the latest revision (what upstream offers in the 410's metadata.continue).
   */
  readonly continue?: string;
}

export const notFound = (key: string): StorageError => new StorageError('NotFound', `key not found: ${key}`, key);

export const alreadyExists = (key: string): StorageError =>
  new StorageError('AlreadyExists', `key already exists: ${key}`, key);

export const conflict = (key: string, detail: string): StorageError =>
  new StorageError('Conflict', `precondition failed for ${key}: ${detail}`, key);

export const gone = (revision: number, compacted = 0): StorageError =>
  new StorageError(
    'Gone',
    `revision ${revision} has been compacted${compacted ? ` (oldest available: ${compacted})` : ''}`,
    '',
    compacted,
  );

/** Gone for a paged list's next chunk, offering `token` to resume it at the latest revision. */
export const goneContinuing = (error: StorageError, token: string): StorageError =>
  new StorageError('Gone', error.message, error.key, error.revision, { cause: error, continue: token });

export const tooLargeResourceVersion = (requested: number, current: number): StorageError =>
  new StorageError(
    'TooLargeResourceVersion',
    `revision ${requested} is newer than the store's current revision ${current}`,
    '',
    current,
  );

/** `message`: the backend's own words (etcd's "etcdserver: request is too large"). */
export const requestTooLarge = (key: string, message: string, cause?: unknown): StorageError =>
  new StorageError('RequestTooLarge', message, key, 0, { cause });

export const unavailable = (message: string, cause?: unknown): StorageError =>
  new StorageError('Unavailable', message, '', 0, { cause });

export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return error instanceof StorageError && (code === undefined || error.code === code);
}
