// The client of one API server: typed resources, discovery, and shared informers over one connection pool.
import { DiscoveryClient } from './discovery.js';
import { Informer, type InformerOptions } from './informer.js';
import { loadKubeconfig, type ClientConfig } from './kubeconfig.js';
import { ResourceClient } from './resource.js';
import { RestClient } from './rest.js';
import type { KubeObject, ResourceRef } from './types.js';

export class Client {
  readonly rest: RestClient;
  readonly discovery: DiscoveryClient;

  constructor(config: ClientConfig) {
    this.rest = new RestClient(config);
    this.discovery = new DiscoveryClient(this.rest);
  }

  /** A client for the current context of a kubeconfig file. */
  static async fromKubeconfig(path: string, options: { context?: string; userAgent?: string } = {}): Promise<Client> {
    const config = await loadKubeconfig(path, options.context);
    return new Client({ ...config, ...(options.userAgent && { userAgent: options.userAgent }) });
  }

  resource<T extends KubeObject = KubeObject>(ref: ResourceRef): ResourceClient<T> {
    return new ResourceClient<T>(this.rest, ref);
  }

  close(): void {
    this.rest.close();
  }
}

const refKey = (ref: ResourceRef, namespace: string): string => `${ref.group}/${ref.version}/${ref.resource}/${namespace}`;

/**
 * One informer per resource (and namespace) shared by every controller that asks for it, so that
 * each resource is listed and watched once (client-go's SharedInformerFactory).
 */
export class InformerFactory {
  private readonly informers = new Map<string, Informer>();
  private started = false;

  constructor(
    private readonly client: Client,
    private readonly options: InformerOptions = {},
  ) {}

  /** The shared informer of a resource; started at once if the factory has been started. */
  informerFor<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace = ''): Informer<T> {
    const key = refKey(ref, namespace);
    let informer = this.informers.get(key);
    if (!informer) {
      const resource = namespace ? this.client.resource(ref).namespace(namespace) : this.client.resource(ref);
      informer = new Informer(resource, this.options);
      this.informers.set(key, informer);
      if (this.started) informer.start();
    }
    return informer as unknown as Informer<T>;
  }

  /** The informer of a resource if one was asked for. */
  existing<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace = ''): Informer<T> | undefined {
    return this.informers.get(refKey(ref, namespace)) as unknown as Informer<T> | undefined;
  }

  start(): void {
    this.started = true;
    for (const informer of this.informers.values()) informer.start();
  }

  /** Whether every informer asked for so far has synced (true when none was asked for). */
  hasSynced(): boolean {
    return [...this.informers.values()].every((informer) => informer.hasSynced());
  }

  /** True once every informer asked for so far has synced; false if `signal` aborts first. */
  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((informer) => informer.waitForSync(signal)));
    return results.every(Boolean);
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
  }
}
