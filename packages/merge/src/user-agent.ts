// The field manager of an update that names none: the product before the first `/` of the User-Agent.

/** Upstream's FieldManagerMaxLength, in bytes of UTF-8. */
export const fieldManagerMaxLength = 128;

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * Upstream's prefixFromUserAgent: the text before the first `/`, without unprintable characters,
 * cut to 128 bytes (`kubectl/v1.28.0 (linux/amd64) kubernetes/abc` gives `kubectl`). An absent
 * User-Agent gives "" (the manager is then recorded as "unknown").
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  if (!userAgent) return '';
  const prefix = userAgent.split('/')[0] ?? '';
  let out = '';
  let bytes = 0;
  for (const char of prefix) {
    if (!printable.test(char)) continue;
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > fieldManagerMaxLength) break;
    out += char;
    bytes += size;
  }
  return out;
}
