// URLs as Go's net/url parses them (url.Parse, url.ParseRequestURI): webhook URLs, the API
// approval annotation and the expression language's url() are judged by what Go makes of them,
// which the WHATWG URL parser does not match (it accepts and rewrites far more).
import { goQuote } from './go-format.js';

export interface GoURL {
  scheme: string;
  /** Set when the URL is `scheme:opaque` (no `//`). */
  opaque: string;
  /** `user` or `user:password`, undefined without an @ in the authority. */
  user?: string;
  host: string;
  /** The path as written (still escaped). */
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

const controlCharacter = /[\x00-\x1f\x7f]/;

function unescape(s: string, what: 'path' | 'fragment' | 'user' | 'host'): string {
  // In chunks between escapes: a character at a time made a string per character (a URL of
  // 3,000,000 characters took 2 s, most of it collecting them).
  const parts: string[] = [];
  let from = 0;
  for (let i = s.indexOf('%'); i >= 0; i = s.indexOf('%', from)) {
    const hex = s.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new Error(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
    parts.push(s.slice(from, i), String.fromCharCode(Number.parseInt(hex, 16)));
    from = i + 3;
  }
  parts.push(s.slice(from));
  if (what === 'user' && /[^A-Za-z0-9\-._:~!$&'()*+,;=%@]/.test(s)) throw new Error('net/url: invalid userinfo');
  return parts.join('');
}

/** The scheme, when the text begins with one (Go's getScheme). */
function splitScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new Error('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const end = host.lastIndexOf(']');
    if (end < 0) throw new Error('missing \']\' in host');
    const port = host.slice(end + 1);
    if (port && !/^:[0-9]*$/.test(port)) throw new Error(`invalid port ${goQuote(port)} after host`);
    return host;
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0) {
    const port = host.slice(colon);
    if (!/^:[0-9]*$/.test(port)) throw new Error(`invalid port ${goQuote(port)} after host`);
  }
  return unescape(host, 'host');
}

function parse(raw: string, viaRequest: boolean): GoURL {
  if (controlCharacter.test(raw)) throw new Error('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new Error('empty url');
  const url: GoURL = { scheme: '', opaque: '', host: '', rawPath: '', rawQuery: '', fragment: '' };
  if (raw === '*') return url;
  const [scheme, afterScheme] = splitScheme(raw);
  url.scheme = scheme.toLowerCase();
  let rest = afterScheme;
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme) {
      url.opaque = rest;
      return url;
    }
    if (viaRequest) throw new Error('invalid URI for request');
    const slash = rest.indexOf('/');
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(':')) throw new Error('first path segment in URL cannot contain colon');
  }
  if ((url.scheme || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    const afterSlashes = rest.slice(2);
    const slash = afterSlashes.indexOf('/');
    const authority = slash < 0 ? afterSlashes : afterSlashes.slice(0, slash);
    rest = slash < 0 ? '' : afterSlashes.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      url.user = unescape(authority.slice(0, at), 'user');
      url.host = parseHost(authority.slice(at + 1));
    } else url.host = parseHost(authority);
  }
  unescape(rest, 'path');
  url.rawPath = rest;
  return url;
}

/** Go's url.Parse; throws an Error with Go's message (`parse "x": ...`). */
export function parseGoURL(raw: string): GoURL {
  const hash = raw.indexOf('#');
  const [main, fragment] = hash < 0 ? [raw, ''] : [raw.slice(0, hash), raw.slice(hash + 1)];
  try {
    const url = parse(main, false);
    url.fragment = unescape(fragment, 'fragment');
    return url;
  } catch (error) {
    throw new Error(`parse ${goQuote(raw)}: ${(error as Error).message}`);
  }
}

/** Go's url.ParseRequestURI: an absolute URI or path, no fragment splitting; undefined when Go refuses it. */
export function parseGoRequestURI(raw: string): GoURL | undefined {
  try {
    return parse(raw, true);
  } catch {
    return undefined;
  }
}

/** Go's URL.Hostname(): the host without its port or an IPv6 address's brackets. */
export function goURLHostname(url: GoURL): string {
  const host = url.host;
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host.slice(1) : host.slice(1, end);
  }
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

/** Go's URL.Port(): the digits after the host's last colon, or empty. */
export function goURLPort(url: GoURL): string {
  const host = url.host;
  const colon = host.lastIndexOf(':');
  if (colon < 0 || (host.startsWith('[') && colon < host.indexOf(']'))) return '';
  const port = host.slice(colon + 1);
  return /^[0-9]*$/.test(port) ? port : '';
}

const pathSafe = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/;
/** The bytes EscapedPath writes as they are; the others as %XX. */
const PATH_SAFE: readonly boolean[] = Array.from({ length: 256 }, (_, byte) => byte < 0x80 && pathSafe.test(String.fromCharCode(byte)));
const HEX = '0123456789ABCDEF';

/** Go's URL.EscapedPath(): the path as written when that is a valid escaping, else the path escaped. */
export function goURLEscapedPath(url: GoURL): string {
  const raw = url.rawPath;
  // Only safe characters and escapes: two scans without backtracking (a repeated alternation took
  // 400 ms on a path of 3,000,000 characters).
  if (!/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/.test(raw) && !/%(?![0-9A-Fa-f]{2})/.test(raw)) return raw;
  // Written as bytes, then read as text: a string per byte took 500 ms for 3,000,000 of them.
  const bytes = new TextEncoder().encode(unescape(raw, 'path'));
  const out = Buffer.alloc(bytes.length * 3);
  let n = 0;
  for (const byte of bytes) {
    if (PATH_SAFE[byte]) out[n++] = byte;
    else {
      out[n++] = 0x25;
      out[n++] = HEX.charCodeAt(byte >> 4);
      out[n++] = HEX.charCodeAt(byte & 15);
    }
  }
  return out.toString('latin1', 0, n);
}

function queryUnescape(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/** Go's URL.Query(): the query's values by key, in order; malformed pairs (or with `;`) left out, as Go does. */
export function goURLQuery(url: GoURL): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const pair of url.rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) continue;
    const list = values.get(key) ?? [];
    list.push(value);
    values.set(key, list);
  }
  return values;
}
