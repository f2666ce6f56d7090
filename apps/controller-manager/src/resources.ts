// The resources the server serves, from discovery: which ones the controllers act on, and which
// resource an ownerReference's apiVersion and kind name. Kinds the server adds later are found by
// refreshing it.
import { parseApiVersion, type APIResource, type Client, type DiscoveryResult } from '@plat/client';

export class ResourceMap {
  private byKind = new Map<string, APIResource>();
  private all: APIResource[] = [];

  constructor(private readonly client: Client) {}

  /** Reads discovery again; returns what it found, with the group versions that failed. */
  async refresh(): Promise<DiscoveryResult> {
    const result = await this.client.discovery.serverPreferredResources();
    // A group version that failed keeps what was known of it.
    const failedGroups = new Set(result.failed.map((f) => parseApiVersion(f.groupVersion).group));
    const kept = this.all.filter((r) => failedGroups.has(r.group));
    this.all = [...result.resources, ...kept];
    this.byKind = new Map(this.all.map((r) => [`${r.group}/${r.kind}`, r]));
    return result;
  }

  resources(): readonly APIResource[] {
    return this.all;
  }

  /** The resource of an apiVersion and kind (any served version of the group), if served. */
  forKind(apiVersion: string, kind: string): APIResource | undefined {
    return this.byKind.get(`${parseApiVersion(apiVersion).group}/${kind}`);
  }
}
