// The file --authentication-token-webhook-config-file and --authorization-webhook-config-file name:
// a kubeconfig whose current context's cluster is the remote service (its server URL is posted to
// as it is, path included, as upstream's webhooks do) and whose user is the API server's own
// credentials towards it. Credentials this server cannot present (exec plugins, auth providers,
// impersonation, proxies) are refused at start rather than silently left out.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { WebhookConnection } from './connection.js';

type Named<K extends string, T> = { name?: unknown } & { [key in K]?: T };

interface KubeconfigCluster {
  server?: unknown;
  'certificate-authority'?: unknown;
  'certificate-authority-data'?: unknown;
  'insecure-skip-tls-verify'?: unknown;
  'tls-server-name'?: unknown;
  'proxy-url'?: unknown;
}

interface KubeconfigUser {
  token?: unknown;
  tokenFile?: unknown;
  username?: unknown;
  password?: unknown;
  'client-certificate'?: unknown;
  'client-certificate-data'?: unknown;
  'client-key'?: unknown;
  'client-key-data'?: unknown;
  exec?: unknown;
  'auth-provider'?: unknown;
  as?: unknown;
}

interface Kubeconfig {
  clusters?: Named<'cluster', KubeconfigCluster>[];
  users?: Named<'user', KubeconfigUser>[];
  contexts?: Named<'context', { cluster?: unknown; user?: unknown }>[];
  'current-context'?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The entry of a kubeconfig list with this name. */
function named<K extends string, T>(list: Named<K, T>[] | undefined, key: K, name: string): T | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.find((entry) => entry?.name === name)?.[key];
}

/** A kubeconfig's text as a webhook connection; files it names are read relative to `dir`. */
export async function parseWebhookKubeconfig(source: string, dir: string): Promise<WebhookConnection> {
  let config: Kubeconfig;
  try {
    config = (parseYaml(source) ?? {}) as Kubeconfig;
  } catch (error) {
    throw new Error(`not a kubeconfig: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof config !== 'object' || Array.isArray(config)) throw new Error('not a kubeconfig: not a mapping');
  const contextName = text(config['current-context']);
  if (!contextName) throw new Error('invalid configuration: no current-context');
  const context = named(config.contexts, 'context', contextName);
  if (!context) throw new Error(`invalid configuration: context "${contextName}" not found`);
  const clusterName = text(context.cluster);
  const cluster = named(config.clusters, 'cluster', clusterName);
  const server = text(cluster?.server);
  if (!cluster || !server) throw new Error(`invalid configuration: no server found for cluster "${clusterName}"`);
  if (!URL.canParse(server) || !['http:', 'https:'].includes(new URL(server).protocol)) {
    throw new Error(`invalid configuration: cluster "${clusterName}": server ${JSON.stringify(server)} is not an http:// or https:// URL`);
  }
  const userName = text(context.user);
  const user = userName ? named(config.users, 'user', userName) : undefined;
  if (userName && !user) throw new Error(`invalid configuration: user "${userName}" not found`);

  const file = async (name: string): Promise<string> => {
    const path = isAbsolute(name) ? name : resolve(dir, name);
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw new Error(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  /** `<field>-data` (base64) or the file `<field>` names. */
  const pem = async (entry: object, field: string): Promise<string | undefined> => {
    const record = entry as Record<string, unknown>;
    const data = text(record[`${field}-data`]);
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    const path = text(record[field]);
    return path ? file(path) : undefined;
  };

  const unsupported = (what: string): Error => new Error(`${what} are not supported for webhooks`);
  if (cluster['proxy-url']) throw unsupported(`cluster "${clusterName}": proxies (proxy-url)`);
  if (user?.exec) throw unsupported(`user "${userName}": exec credential plugins`);
  if (user?.['auth-provider']) throw unsupported(`user "${userName}": auth providers`);
  if (user?.as) throw unsupported(`user "${userName}": impersonation (as)`);

  const insecure = cluster['insecure-skip-tls-verify'] === true;
  const ca = await pem(cluster, 'certificate-authority');
  // client-go's own refusal: a CA says the server is to be verified.
  if (insecure && ca) throw new Error('invalid configuration: specifying a root certificates file with the insecure flag is not allowed');
  const connection: WebhookConnection = { url: server, verifyServer: !insecure };
  if (ca) connection.ca = ca;
  if (text(cluster['tls-server-name'])) connection.serverName = text(cluster['tls-server-name']);
  if (user) {
    const cert = await pem(user, 'client-certificate');
    const key = await pem(user, 'client-key');
    if (Boolean(cert) !== Boolean(key)) throw new Error(`invalid configuration: user "${userName}": client-certificate and client-key must be given together`);
    if (cert && key) Object.assign(connection, { cert, key });
    const token = text(user.token) || (text(user.tokenFile) ? (await file(text(user.tokenFile))).trim() : '');
    const username = text(user.username);
    if (token && username) throw new Error(`invalid configuration: user "${userName}": username/password or bearer token may be set, but not both`);
    if (token) connection.authorization = `Bearer ${token}`;
    else if (username) connection.authorization = `Basic ${Buffer.from(`${username}:${text(user.password)}`).toString('base64')}`;
  }
  return connection;
}

/** Reads the file a webhook flag names; errors name the file. */
export async function loadWebhookKubeconfig(path: string): Promise<WebhookConnection> {
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return await parseWebhookKubeconfig(source, dirname(resolve(path)));
  } catch (error) {
    throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
