// Kubernetes' URL library (pkg/cel/library/urls.go): url(), isURL() and the accessors, with Go's
// net/url deciding what a URL is (absolute, as ParseRequestURI requires).
import { goURLEscapedPath, goURLHostname, goURLPort, goURLQuery, parseGoRequestURI, parseGoURL, type GoURL } from '@plat/apimachinery';
import { BoolType, StringType, listOf, mapOf, opaque } from '../types.js';
import { ArrayList, LiteralMap, OpaqueValue, type Value } from '../values.js';
import { err, fn, global, member, type FunctionDecl } from './overload.js';

export const URLType = opaque('kubernetes.URL');

export class URLValue extends OpaqueValue {
  readonly typeName = 'kubernetes.URL';
  constructor(
    readonly text: string,
    readonly url: GoURL,
  ) {
    super();
  }
  equals(other: OpaqueValue): boolean {
    return other instanceof URLValue && other.text === this.text;
  }
}

function toURL(s: string): Value {
  if (!parseGoRequestURI(s)) {
    try {
      parseGoURL(s);
    } catch (error) {
      return err(`URL parse error during conversion from string: ${(error as Error).message}`);
    }
    return err(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`);
  }
  try {
    return new URLValue(s, parseGoURL(s));
  } catch (error) {
    return err(`URL parse error during conversion from string: ${(error as Error).message}`);
  }
}

const url = (v: Value | undefined): GoURL => (v as URLValue).url;

export const urlsLibrary: readonly FunctionDecl[] = [
  fn('url', global('string_to_url', [StringType], URLType, ([s]) => toURL(s as string))),
  fn('isURL', global('is_url_string', [StringType], BoolType, ([s]) => parseGoRequestURI(s as string) !== undefined)),
  fn('getScheme', member('url_get_scheme', [URLType], StringType, ([u]) => url(u).scheme)),
  fn('getHost', member('url_get_host', [URLType], StringType, ([u]) => url(u).host)),
  fn('getHostname', member('url_get_hostname', [URLType], StringType, ([u]) => goURLHostname(url(u)))),
  fn('getPort', member('url_get_port', [URLType], StringType, ([u]) => goURLPort(url(u)))),
  fn('getEscapedPath', member('url_get_escaped_path', [URLType], StringType, ([u]) => goURLEscapedPath(url(u)))),
  fn(
    'getQuery',
    member('url_get_query', [URLType], mapOf(StringType, listOf(StringType)), ([u]) =>
      new LiteralMap([...goURLQuery(url(u))].map(([k, values]) => [k, new ArrayList(values)] as const)),
    ),
  ),
];
