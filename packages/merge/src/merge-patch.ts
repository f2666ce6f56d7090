// JSON merge patch (RFC 7386): objects merge key by key, null deletes, anything else replaces.
import { deepCopy, hasKey, isObject, setKey } from './json.js';

/** Applies `patch` to a copy of `document`; neither input is modified nor shared with the result. */
export function applyMergePatch(document: unknown, patch: unknown): unknown {
  return mergeInto(deepCopy(document), patch);
}

function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return deepCopy(patch);
  const out: Record<string, unknown> = isObject(target) ? target : {};
  for (const key in patch) {
    if (!hasKey(patch, key)) continue;
    const value = patch[key];
    if (value === null) delete out[key];
    else setKey(out, key, mergeInto(hasKey(out, key) ? out[key] : undefined, value));
  }
  return out;
}
