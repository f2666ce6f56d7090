// Preconditions on the stored object: a mismatch is a Conflict, as upstream.
import type { Preconditions, StoredObject } from './interface.js';
import { conflict } from './errors.js';

export function checkPreconditions(key: string, preconditions: Preconditions | undefined, current: StoredObject): void {
  if (!preconditions) return;
  const metadata = current.metadata ?? {};
  if (preconditions.uid !== undefined && preconditions.uid !== metadata.uid) {
    throw conflict(key, `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${metadata.uid ?? ''}`);
  }
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== metadata.resourceVersion) {
    throw conflict(
      key,
      `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${metadata.resourceVersion ?? ''}`,
    );
  }
}
