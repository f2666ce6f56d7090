// A kubeconfig file as a connection: the current context's server, the CA it is trusted by, and the
// user's credentials (a bearer token, or a client certificate).
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** How to reach and authenticate to one API server. */
export interface ClientConfig {
  /** https://host:port, possibly with a path prefix. */
  server: string;
  /** PEM of the CA that signed the server's certificate; absent: the system's trust store. */
  ca?: string;
  insecureSkipTLSVerify?: boolean;
  /** The name the server's certificate must carry, when it is not the server's host. */
  tlsServerName?: string;
  token?: string;
  /** PEM client certificate and key. */
  cert?: string;
  key?: string;
  userAgent?: string;
  /**
   * Requests a second this client sends at most (client-go's rest.Config QPS); 0: client-go's
   * default of 5; below 0: no limit. Absent: no limit.
   */
  qps?: number;
  /** Requests sent at once after a quiet spell (client-go's Burst); 0: the default of 10. */
  burst?: number;
  /**
   * How objects travel (client-go's ContentType): absent, JSON; with a codec, request bodies in its
   * media type where it carries the kind (JSON otherwise, and for patches) and answers accepted in it.
   */
  codec?: ObjectCodec;
}

/** A wire form of API objects other than JSON (Kubernetes' Protobuf), given by whoever knows the kinds. */
export interface ObjectCodec {
  /** Its media type, as Content-Type and Accept name it. */
  mediaType: string;
  /** Whether it carries objects of this apiVersion and kind (others go as JSON). */
  carries(apiVersion: string, kind: string): boolean;
  encode(object: object): Uint8Array;
  /** An object, list or Status in this form back to its JSON form; throws on bytes it cannot read. */
  decode(bytes: Uint8Array): unknown;
}

export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

interface Named<T> {
  name?: string;
  cluster?: T;
  user?: T;
  context?: T;
}

interface RawCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

interface RawUser {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
}

interface RawContext {
  cluster?: string;
  user?: string;
}

interface RawKubeconfig {
  clusters?: Named<RawCluster>[];
  users?: Named<RawUser>[];
  contexts?: Named<RawContext>[];
  'current-context'?: string;
}

const base64 = (data: string): string => Buffer.from(data, 'base64').toString('utf8');

/** Reads a kubeconfig file; `context` overrides its current-context. */
export async function loadKubeconfig(path: string, context?: string): Promise<ClientConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new KubeconfigError(`cannot read kubeconfig ${path}: ${(error as Error).message}`);
  }
  return parseKubeconfig(text, { dir: dirname(resolve(path)), ...(context && { context }) });
}

/** A kubeconfig's text as a ClientConfig; relative file names are resolved against `dir`. */
export async function parseKubeconfig(text: string, options: { dir: string; context?: string }): Promise<ClientConfig> {
  let raw: RawKubeconfig;
  try {
    raw = (parseYaml(text) ?? {}) as RawKubeconfig;
  } catch (error) {
    throw new KubeconfigError(`kubeconfig is not valid YAML: ${(error as Error).message}`);
  }
  const contextName = options.context ?? raw['current-context'];
  if (!contextName) throw new KubeconfigError('kubeconfig has no current-context');
  const context = raw.contexts?.find((c) => c.name === contextName)?.context;
  if (!context) throw new KubeconfigError(`context ${JSON.stringify(contextName)} not found in kubeconfig`);
  const cluster = raw.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster?.server) throw new KubeconfigError(`cluster ${JSON.stringify(context.cluster ?? '')} of context ${JSON.stringify(contextName)} has no server`);
  const user = context.user ? raw.users?.find((u) => u.name === context.user)?.user : undefined;
  if (context.user && !user) throw new KubeconfigError(`user ${JSON.stringify(context.user)} not found in kubeconfig`);

  const file = async (name: string): Promise<string> => {
    const path = isAbsolute(name) ? name : resolve(options.dir, name);
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw new KubeconfigError(`cannot read ${path}: ${(error as Error).message}`);
    }
  };
  const config: ClientConfig = { server: cluster.server };
  if (cluster['certificate-authority-data']) config.ca = base64(cluster['certificate-authority-data']);
  else if (cluster['certificate-authority']) config.ca = await file(cluster['certificate-authority']);
  if (cluster['insecure-skip-tls-verify']) config.insecureSkipTLSVerify = true;
  if (cluster['tls-server-name']) config.tlsServerName = cluster['tls-server-name'];
  if (user?.token) config.token = user.token;
  else if (user?.tokenFile) config.token = (await file(user.tokenFile)).trim();
  if (user?.['client-certificate-data']) config.cert = base64(user['client-certificate-data']);
  else if (user?.['client-certificate']) config.cert = await file(user['client-certificate']);
  if (user?.['client-key-data']) config.key = base64(user['client-key-data']);
  else if (user?.['client-key']) config.key = await file(user['client-key']);
  return config;
}
