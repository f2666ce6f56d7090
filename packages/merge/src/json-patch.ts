// JSON patch (RFC 6902) through fast-json-patch, with kube-apiserver's classification of failures.
import jsonpatch from 'fast-json-patch';
import { deepCopy, isObject } from './json.js';
import { PatchError } from './patch-error.js';

/** Upstream's maxJSONPatchOperations. */
export const maxJSONPatchOperations = 10000;

/**
 * Upstream's JSONPatchMaxCopyBytes (3 MiB): how much the `copy` operations of one patch may add in
 * all, counted as the JSON size of each copied value. Without it a patch that copies a list into
 * itself doubles the object with every operation.
 */
const maxJSONPatchCopyBytes = 3 * 1024 * 1024;

/**
 * Applies an RFC 6902 patch (its text, or the already parsed list of operations) to a copy of
 * `document`. Throws PatchError: `bad-request` when the patch is not a list of operation objects,
 * `too-large` past 10000 operations, `test-failed` for a failed `test`, `invalid` for any other
 * operation that does not apply (upstream answers both of the last two with 422).
 */
export function applyJsonPatch(document: unknown, patchText: string | unknown[]): unknown {
  let operations: unknown;
  if (typeof patchText === 'string') {
    try {
      operations = JSON.parse(patchText);
    } catch (err) {
      throw new PatchError('bad-request', `error decoding patch: ${(err as Error).message}`, { cause: err });
    }
  } else {
    operations = patchText;
  }
  if (!Array.isArray(operations)) {
    throw new PatchError('bad-request', 'json: cannot unmarshal into Go value of type jsonpatch.Patch: the patch is not a list');
  }
  for (const op of operations) {
    if (!isObject(op)) {
      throw new PatchError('bad-request', 'json: cannot unmarshal into Go value of type jsonpatch.Operation: an operation is not an object');
    }
  }
  if (operations.length > maxJSONPatchOperations) {
    throw new PatchError(
      'too-large',
      `The allowed maximum operations in a JSON patch is ${maxJSONPatchOperations}, got ${operations.length}`,
    );
  }
  let patched = deepCopy(document);
  let copiedBytes = 0;
  for (const [index, operation] of (operations as jsonpatch.Operation[]).entries()) {
    if (operation.op === 'copy') {
      copiedBytes += copySize(patched, operation.from);
      if (copiedBytes > maxJSONPatchCopyBytes) {
        throw new PatchError(
          'invalid',
          `Unable to complete the copy, the accumulated size increase of copy is ${copiedBytes}, exceeding the limit ${maxJSONPatchCopyBytes}`,
        );
      }
    }
    try {
      patched = jsonpatch.applyOperation(patched, operation, true, true, true, index).newDocument;
    } catch (err) {
      throw classify(err);
    }
  }
  return patched;
}

/** The JSON size of what a `copy` would copy; 0 where `from` names nothing (the operation then fails). */
function copySize(document: unknown, from: unknown): number {
  if (typeof from !== 'string') return 0;
  let value: unknown;
  try {
    value = jsonpatch.getValueByPointer(document, from);
  } catch {
    return 0;
  }
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
}

function classify(err: unknown): PatchError {
  if (err instanceof jsonpatch.JsonPatchError) {
    const op = isObject(err.operation) ? err.operation : {};
    const path = typeof op.path === 'string' ? op.path : '';
    if (err.name === 'TEST_OPERATION_FAILED') {
      return new PatchError('test-failed', `testing value ${path} failed: test failed`, { cause: err });
    }
    const verb = typeof op.op === 'string' ? op.op : 'unknown';
    return new PatchError('invalid', `${verb} operation does not apply: ${firstLine(err.message)}: ${path}`, { cause: err });
  }
  // fast-json-patch refuses __proto__ and constructor/prototype paths with a TypeError.
  return new PatchError('invalid', `operation does not apply: ${err instanceof Error ? firstLine(err.message) : String(err)}`, {
    cause: err,
  });
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
