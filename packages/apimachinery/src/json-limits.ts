// How deep and how large a decoded request may be, the same for every format and every patch.

/**
 * The deepest nesting of objects and arrays a request may carry (the root object is depth 1).
 * Upstream's JSON decoder stops at 10,000; here JSON.stringify alone overflows node's stack at a few
 * thousand, and the yaml parser's at about 800, so one lower bound holds for every decoder and every
 * recursive step after it. No object of the API comes near it.
 */
export const MAX_NESTING_DEPTH = 500;

/**
 * The largest object a request may carry or a patch may produce: upstream's MaxRequestBodyBytes and
 * JSONPatchMaxCopyBytes, both 3 MiB (twice etcd's default request limit, as JSON is larger than
 * the stored form).
 */
export const MAX_OBJECT_BYTES = 3 * 1024 * 1024;

/** The depth message, as Go's decoder words it, with our bound. */
export const depthExceededMessage = `exceeded max depth of ${MAX_NESTING_DEPTH}`;

/**
 * Which bound a decoded value passes, if any: nesting past MAX_NESTING_DEPTH, or an encoding of more
 * than MAX_OBJECT_BYTES. The size counted is a lower bound of the value's JSON text (string lengths
 * in UTF-16 units, one byte a number), so a value decoded from a text within the limit never
 * passes it; a value that grew (YAML aliases, a patch) is caught before anything encodes it.
 * Iterative, with an explicit stack: the value may be nested past what recursion survives.
 */
export function exceededJsonLimit(
  value: unknown,
  limits: { depth: number; bytes: number } = { depth: MAX_NESTING_DEPTH, bytes: MAX_OBJECT_BYTES },
): 'depth' | 'size' | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  let bytes = 0;
  while (stack.length) {
    const { value: item, depth } = stack.pop()!;
    if (typeof item === 'string') bytes += item.length + 2;
    else if (typeof item !== 'object' || item === null) bytes += item === null ? 4 : typeof item === 'boolean' ? 4 : 1;
    else {
      if (depth > limits.depth) return 'depth';
      // Brackets, and the commas between members.
      bytes += 1;
      if (Array.isArray(item)) {
        for (const element of item) stack.push({ value: element, depth: depth + 1 });
        bytes += Math.max(item.length, 1);
      } else {
        const keys = Object.keys(item);
        for (const key of keys) {
          bytes += key.length + 3;
          stack.push({ value: (item as Record<string, unknown>)[key], depth: depth + 1 });
        }
        bytes += Math.max(keys.length, 1);
      }
    }
    if (bytes > limits.bytes) return 'size';
  }
  return undefined;
}
