// What a webhook client is made from, and the connection each form comes down to (upstream's
// ClientManager.HookClient without its cache): a kubeconfig file's cluster and user (the
// authentication and authorization webhooks), or the clientConfig of an API object, a URL or a
// Service with the caBundle its certificate is verified against (admission webhooks, CRD
// conversion webhooks, APIServices).
import { parseGoURL, type GoURL } from '@plat/apimachinery';
import type { WebhookConnection } from './connection.js';
import { rootCertificates } from './root-certificates.js';
import type { ServiceResolver } from './service-resolver.js';

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  /** Default 443. */
  port?: number;
}

/** A webhook named by a kubeconfig-format file (--authentication-token-webhook-config-file and the like), as read. */
export interface KubeconfigClientConfig {
  kubeconfig: WebhookConnection;
}

/** A webhook as an API object names it (its clientConfig): a URL or a Service; the Service when both. */
export interface ObjectClientConfig {
  /** The webhook's name, for errors only: `failed calling webhook "<name>": ...`. Not part of the cache key. */
  name?: string;
  url?: string;
  service?: ServiceReference;
  /** PEM (the object's caBundle, base64-decoded); absent: the system's authorities. */
  caBundle?: string;
}

export type WebhookClientConfig = KubeconfigClientConfig | ObjectClientConfig;

/** Upstream's user agent for the clients of its ClientManager (setGlobalDefaults), in our name. */
const OBJECT_WEBHOOK_USER_AGENT = 'plat-apiserver-admission';
const DEFAULT_SERVICE_PORT = 443;

/** Upstream's ErrCallingWebhook text, for what makes a client unusable before any call. */
const callingError = (config: ObjectClientConfig, reason: string): Error => new Error(`failed calling webhook ${JSON.stringify(config.name ?? '')}: ${reason}`);

/** Go's path.Join("/", p): the REST client's request path. */
function cleanPath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '..') parts.pop();
    else if (part && part !== '.') parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** A DialTarget's host: an IPv6 address without its brackets. */
const bare = (hostname: string): string => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);

function serviceConnection(service: ServiceReference, resolver: ServiceResolver): WebhookConnection {
  const port = service.port || DEFAULT_SERVICE_PORT;
  // The Host header and the certificate's name are the Service's; the connection goes where the
  // resolver says, asked again for each request as upstream's Dial is.
  const serverName = `${service.name}.${service.namespace}.svc`;
  return {
    url: `https://${serverName}:${port}${cleanPath(service.path ?? '')}`,
    serverName,
    verifyServer: true,
    dial: () => {
      const resolved = resolver.resolve(service.namespace, service.name, port);
      const defaultPort = resolved.protocol === 'http:' ? 80 : 443;
      return { host: bare(resolved.hostname), port: resolved.port ? Number(resolved.port) : defaultPort };
    },
  };
}

function urlConnection(config: ObjectClientConfig & { url: string }): WebhookConnection {
  let parsed: GoURL;
  try {
    parsed = parseGoURL(config.url);
  } catch (error) {
    throw callingError(config, `Unparsable URL: ${(error as Error).message}`);
  }
  const url = `${parsed.scheme}://${parsed.host}${cleanPath(parsed.rawPath)}`;
  // Go would fail each call (`http: no Host in request URL`); a WHATWG URL would take the path's
  // first segment for the host and post elsewhere. Validation keeps such URLs out of objects.
  if (!parsed.host || !URL.canParse(url)) throw new Error(`Post ${JSON.stringify(url)}: http: no Host in request URL`);
  return { url, verifyServer: true };
}

/** The connection `config` comes down to; throws, as upstream's HookClient does, when there is none. */
export function connectionFor(config: WebhookClientConfig, resolver: ServiceResolver): WebhookConnection {
  if ('kubeconfig' in config) {
    const { ca, ...rest } = config.kubeconfig;
    return { ...rest, ...(ca && { ca: rootCertificates(ca) }) };
  }
  let connection: WebhookConnection;
  if (config.service) connection = serviceConnection(config.service, resolver);
  else if (config.url) connection = urlConnection({ ...config, url: config.url });
  else throw callingError(config, 'webhook configuration must have either service or URL');
  connection.userAgent = OBJECT_WEBHOOK_USER_AGENT;
  if (config.caBundle) connection.ca = rootCertificates(config.caBundle);
  return connection;
}
