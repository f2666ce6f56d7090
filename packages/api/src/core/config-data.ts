// What ConfigMap and Secret share: their data keys, the 1 MiB limit on what they hold, and the
// freeze of an immutable object (upstream's core validation for both).
import { forbidden, invalid, isConfigMapKey, type FieldError, type FieldPath } from '@plat/apimachinery';
import { isDeepStrictEqual } from 'node:util';

/** The most a ConfigMap's or a Secret's data may hold, in bytes (upstream's MaxSecretSize). */
export const MAX_DATA_BYTES = 1024 * 1024;

export const IMMUTABLE_MESSAGE = 'field is immutable when `immutable` is set';

/** Errors of each key of a data map that is not a valid config key. */
export function configKeyErrors(map: Record<string, unknown> | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of Object.keys(map ?? {})) for (const message of isConfigMapKey(key)) errors.push(invalid(path.key(key), key, message));
  return errors;
}

/** The bytes a string map's values hold (Go's len of a string: UTF-8 bytes). */
export function textBytes(map: Record<string, string> | undefined): number {
  let total = 0;
  for (const value of Object.values(map ?? {})) total += Buffer.byteLength(value, 'utf8');
  return total;
}

/** The bytes a base64 map's values decode to ([]byte), counted without decoding. */
export function base64Bytes(map: Record<string, string> | undefined): number {
  let total = 0;
  for (const value of Object.values(map ?? {})) {
    const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
    total += (value.length / 4) * 3 - padding;
  }
  return total;
}

/** Whether two data maps hold the same (an absent map and an empty one alike: Go omits both). */
export function sameData(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return isDeepStrictEqual(a ?? {}, b ?? {});
}

/** The fields of an immutable object that may not change; `immutable` itself may not be unset. */
export function immutableErrors<T extends { immutable?: boolean }>(
  object: T,
  old: T,
  frozen: readonly { path: FieldPath; get: (o: T) => Record<string, string> | undefined }[],
  immutablePath: FieldPath,
): FieldError[] {
  if (old.immutable !== true) return [];
  const errors: FieldError[] = [];
  if (object.immutable !== true) errors.push(forbidden(immutablePath, IMMUTABLE_MESSAGE));
  for (const { path, get } of frozen) if (!sameData(get(object), get(old))) errors.push(forbidden(path, IMMUTABLE_MESSAGE));
  return errors;
}
