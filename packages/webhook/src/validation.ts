// Upstream's checks of where a webhook is (k8s.io/apiserver pkg/util/webhook validation.go), run
// when an object naming one is written: a CRD's conversion webhook today; admission webhook
// configurations and APIServices with them. Messages and paths are upstream's.
import { invalid, isDNS1123Subdomain, parseGoURL, required, type FieldError, type FieldPath } from '@plat/apimachinery';
import type { ServiceReference } from './client-config.js';

const urlForm = '; desired format: https://host[/path]';

/** A webhook URL as Go parses it: https, a host, no user, query or fragment. */
export function validateWebhookURL(path: FieldPath, url: string): FieldError[] {
  let parsed;
  try {
    parsed = parseGoURL(url);
  } catch (error) {
    return [required(path, `url must be a valid URL: ${(error as Error).message}${urlForm}`)];
  }
  const errors: FieldError[] = [];
  if (parsed.scheme !== 'https') errors.push(invalid(path, parsed.scheme, `'https' is the only allowed URL scheme${urlForm}`));
  if (!parsed.host) errors.push(invalid(path, parsed.host, `host must be specified${urlForm}`));
  if (parsed.user !== undefined) errors.push(invalid(path, parsed.user, 'user information is not permitted in the URL'));
  if (parsed.fragment) errors.push(invalid(path, parsed.fragment, 'fragments are not permitted in the URL'));
  if (parsed.rawQuery) errors.push(invalid(path, parsed.rawQuery, 'query parameters are not permitted in the URL'));
  return errors;
}

/** A webhook's Service: name, namespace, a port, and a path of DNS-subdomain segments. */
export function validateWebhookService(path: FieldPath, service: ServiceReference): FieldError[] {
  const errors: FieldError[] = [];
  if (!service.name) errors.push(required(path.child('name'), 'service name is required'));
  if (!service.namespace) errors.push(required(path.child('namespace'), 'service namespace is required'));
  // Upstream validates after defaulting (port 443); an absent port reaching here is Go's zero.
  const port = service.port ?? 0;
  if (!(port >= 1 && port <= 65535)) errors.push(invalid(path.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const urlPath = service.path;
  if (urlPath === undefined || urlPath === null || urlPath === '' || urlPath === '/') return errors;
  const p = path.child('path');
  if (urlPath === '//') return [...errors, invalid(p, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errors.push(invalid(p, urlPath, "must start with a '/'"));
  let segments = urlPath.slice(1);
  if (segments.endsWith('/')) segments = segments.slice(0, -1);
  segments.split('/').forEach((segment, i) => {
    if (!segment) {
      errors.push(invalid(p, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const problem of isDNS1123Subdomain(segment)) errors.push(invalid(p, urlPath, `segment[${i}]: ${problem}`));
  });
  return errors;
}
