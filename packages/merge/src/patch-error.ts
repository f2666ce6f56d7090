// PatchError: a patch that cannot be applied, classified the way kube-apiserver answers it.
import {
  newBadRequest,
  newGenericServerResponse,
  newRequestEntityTooLarge,
  type StatusError,
} from '@plat/apimachinery';

/**
 * - `test-failed`: a JSON patch `test` operation did not match (upstream: 422, reason Invalid, the
 *   stock message "the server rejected our request due to an error in our request", details {};
 *   here the details carry one cause, on the field `patch`, saying which operation failed and why).
 * - `invalid`: any other JSON patch operation that cannot be applied (missing path, index out of
 *   bounds), and the strategic merge patch errors upstream answers 422 (lists of lists, content
 *   outside `$retainKeys`); answered like `test-failed`.
 * - `bad-request`: the patch itself is malformed (not a list of operations, an unknown directive,
 *   a bad `$setElementOrder`); 400 with the message.
 * - `too-large`: more JSON patch operations than upstream allows (10000); 413.
 */
export type PatchErrorKind = 'invalid' | 'test-failed' | 'bad-request' | 'too-large';

export class PatchError extends Error {
  override readonly name = 'PatchError';
  constructor(
    readonly kind: PatchErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The Status kube-apiserver answers for this error. */
  toStatusError(): StatusError {
    switch (this.kind) {
      case 'invalid':
      case 'test-failed':
        // Upstream's NewGenericServerResponse(422, ...) drops the detail; it is kept as a cause.
        return newGenericServerResponse(422, [{ field: 'patch', message: this.message }]);
      case 'too-large':
        return newRequestEntityTooLarge(this.message);
      case 'bad-request':
        return newBadRequest(this.message);
    }
  }
}

export function isPatchError(error: unknown): error is PatchError {
  return error instanceof PatchError;
}
