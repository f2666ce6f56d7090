// One configured credential provider: the images it matches, its cache, and one plugin run at a time per image.
import { CredentialCache } from './cache.js';
import { execPlugin, type ExecPluginOptions } from './exec-plugin.js';
import { matchesImage, parseImagePattern, type ImageLocation } from './match-image.js';
import type { AuthMap } from './response.js';
import type { CredentialProvider } from './schema.js';

export interface ProviderOptions {
  binDir: string;
  timeoutMs?: number;
  hostEnv?: NodeJS.ProcessEnv;
  /** The clock the cache expires by. */
  now?: () => number;
}

export class CredentialProviderPlugin {
  readonly name: string;
  private readonly patterns: ImageLocation[];
  private readonly cache: CredentialCache;
  private readonly inFlight = new Map<string, Promise<AuthMap>>();
  private readonly exec: ExecPluginOptions;
  private readonly defaultCacheDurationMs: number;

  /** The provider must have passed validation. */
  constructor(provider: CredentialProvider, options: ProviderOptions) {
    this.name = provider.name ?? '';
    this.patterns = (provider.matchImages ?? []).map(parseImagePattern);
    this.cache = new CredentialCache(options.now);
    this.defaultCacheDurationMs = provider.defaultCacheDuration ?? 0;
    this.exec = {
      name: this.name,
      binDir: options.binDir,
      apiVersion: provider.apiVersion ?? '',
      args: provider.args ?? [],
      env: provider.env ?? [],
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.hostEnv ? { hostEnv: options.hostEnv } : {}),
    };
  }

  matches(image: string): boolean {
    return this.patterns.some((pattern) => matchesImage(pattern, image));
  }

  /**
   * The plugin's credentials for a matching image, from the cache while they last; throws
   * CredentialPluginError when the plugin fails. Concurrent requests for one image share one run.
   */
  provide(image: string): Promise<AuthMap> {
    const cached = this.cache.get(image);
    if (cached) return Promise.resolve(cached);
    let running = this.inFlight.get(image);
    if (!running) {
      running = this.run(image).finally(() => this.inFlight.delete(image));
      this.inFlight.set(image, running);
    }
    return running;
  }

  private async run(image: string): Promise<AuthMap> {
    const response = await execPlugin(this.exec, image);
    // An explicit 0 means "do not cache"; no duration at all means the provider's default.
    const duration = response.cacheDurationMs ?? this.defaultCacheDurationMs;
    if (duration > 0) this.cache.set(image, response.cacheKeyType, response.auth, duration);
    return response.auth;
  }
}
