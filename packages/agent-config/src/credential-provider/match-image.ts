// matchImages patterns: a registry domain whose segments may be globs, an optional port and an optional path prefix, matched against images.

/** A parsed pattern or image: the domain's dot-separated segments, the port ('' when none) and the path ('' or from the first '/'). */
export interface ImageLocation {
  domain: string[];
  port: string;
  path: string;
  /** An IPv6 literal (`[::1]`): one segment, compared as written. */
  ipv6: boolean;
}

const GLOB = /[*?[\]]/;
const DOMAIN_SEGMENT = /^[A-Za-z0-9\-_~*?[\]^]+$/;

/**
 * Parses a matchImages pattern; throws an Error saying what is wrong. Globs (`*`, `?`, `[a-z]`) are
 * allowed in the domain only, and each stands within one segment.
 */
export function parseImagePattern(pattern: string): ImageLocation {
  const authority = pattern.split('/')[0]!;
  if (!authority.startsWith('[') && authority.includes(':') && GLOB.test(authority.slice(authority.indexOf(':')))) {
    throw new Error('globs are not allowed in the port');
  }
  const location = splitLocation(pattern);
  if (location.domain.length === 1 && location.domain[0] === '') throw new Error('the registry domain is required');
  if (!location.ipv6) {
    for (const segment of location.domain) {
      if (segment === '') throw new Error('the registry domain has an empty segment');
      if (!DOMAIN_SEGMENT.test(segment)) throw new Error(`invalid character in domain segment ${JSON.stringify(segment)}`);
      compileGlob(segment);
    }
  }
  if (GLOB.test(location.path)) throw new Error('globs are allowed only in the domain, not in the path');
  return location;
}

/** Whether the image matches the pattern: same number of domain segments each matching, the same port, and the pattern's path a prefix of the image's. */
export function matchesImage(pattern: string | ImageLocation, image: string): boolean {
  let glob: ImageLocation;
  let target: ImageLocation;
  try {
    glob = typeof pattern === 'string' ? parseImagePattern(pattern) : pattern;
    target = splitLocation(image);
  } catch {
    return false;
  }
  if (glob.port !== target.port) return false;
  if (glob.domain.length !== target.domain.length) return false;
  if (!target.path.startsWith(glob.path)) return false;
  if (glob.ipv6 || target.ipv6) return glob.ipv6 && target.ipv6 && glob.domain[0] === target.domain[0];
  return glob.domain.every((segment, i) => compileGlob(segment).test(target.domain[i]!));
}

/** The registry part of an image: everything before the first '/', port included. */
export function registryOf(image: string): string {
  return image.split('/')[0]!;
}

/** Splits `domain[:port][/path]`, with an IPv6 literal in brackets as one segment; throws on a malformed port. */
function splitLocation(text: string): ImageLocation {
  const slash = text.indexOf('/');
  const authority = slash < 0 ? text : text.slice(0, slash);
  const path = slash < 0 ? '' : text.slice(slash);
  let host = authority;
  let port = '';
  const ipv6 = /^(\[[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\])(.*)$/.exec(authority);
  if (ipv6) {
    host = ipv6[1]!;
    const rest = ipv6[2]!;
    if (rest && !rest.startsWith(':')) throw new Error(`invalid text after the IPv6 address: ${JSON.stringify(rest)}`);
    port = checkPort(rest);
    return { domain: [host], port, path, ipv6: true };
  }
  const colon = authority.indexOf(':');
  if (colon >= 0) {
    host = authority.slice(0, colon);
    port = checkPort(authority.slice(colon));
  }
  return { domain: host.split('.'), port, path, ipv6: false };
}

/** The digits of `:port`, or '' when there is no port. */
function checkPort(text: string): string {
  if (!text) return '';
  const port = text.slice(1);
  if (!/^\d+$/.test(port)) throw new Error(port ? `invalid port ${JSON.stringify(port)}` : 'the port is empty');
  return port;
}

const compiled = new Map<string, RegExp>();

/** One domain segment's glob as a regular expression, filepath.Match's syntax: `*`, `?`, `[a-z]`, `[^a-z]`. */
function compileGlob(segment: string): RegExp {
  const cached = compiled.get(segment);
  if (cached) return cached;
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (ch === '*') source += '[^.]*';
    else if (ch === '?') source += '[^.]';
    else if (ch === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) throw new Error(`unterminated character class in ${JSON.stringify(segment)}`);
      let body = segment.slice(i + 1, close);
      const negated = body.startsWith('^');
      if (negated) body = body.slice(1);
      if (!body) throw new Error(`empty character class in ${JSON.stringify(segment)}`);
      source += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = close;
    } else if (ch === ']' || ch === '^') throw new Error(`unexpected ${JSON.stringify(ch)} in ${JSON.stringify(segment)}`);
    else source += ch.replace(/[.+$(){}|\\]/g, '\\$&');
  }
  let regexp: RegExp;
  try {
    regexp = new RegExp(`^${source}$`);
  } catch {
    throw new Error(`invalid glob ${JSON.stringify(segment)}`);
  }
  compiled.set(segment, regexp);
  return regexp;
}
