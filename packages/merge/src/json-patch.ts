// JSON patch (RFC 6902) through fast-json-patch, with kube-apiserver's classification of failures.
import jsonpatch from 'fast-json-patch';
import { deepCopy, isObject } from './json.js';
import { PatchError } from './patch-error.js';

/** Upstream's maxJSONPatchOperations. */
export const maxJSONPatchOperations = 10000;

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
  try {
    const result = jsonpatch.applyPatch(deepCopy(document), operations as jsonpatch.Operation[], true, true, true);
    return result.newDocument;
  } catch (err) {
    throw classify(err);
  }
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
