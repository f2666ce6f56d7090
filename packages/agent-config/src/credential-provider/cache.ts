// The in-memory cache of a plugin's credentials, keyed by image, registry or globally as the plugin's response says, each entry until it expires.
import { registryOf } from './match-image.js';
import type { AuthMap, CacheKeyType } from './response.js';

interface Entry {
  auth: AuthMap;
  expiresAt: number;
}

export class CredentialCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The credentials cached for the image: by its own name first, then its registry, then the global entry. */
  get(image: string): AuthMap | undefined {
    for (const key of [imageKey(image), registryKey(registryOf(image)), GLOBAL_KEY]) {
      const entry = this.entries.get(key);
      if (!entry) continue;
      if (entry.expiresAt > this.now()) return entry.auth;
      this.entries.delete(key);
    }
    return undefined;
  }

  set(image: string, keyType: CacheKeyType, auth: AuthMap, durationMs: number): void {
    const key = keyType === 'Image' ? imageKey(image) : keyType === 'Registry' ? registryKey(registryOf(image)) : GLOBAL_KEY;
    this.entries.set(key, { auth, expiresAt: this.now() + durationMs });
  }
}

// Prefixed so that an image named like a registry, or like the global key, has its own entry.
const GLOBAL_KEY = 'global';
const imageKey = (image: string): string => `image:${image}`;
const registryKey = (registry: string): string => `registry:${registry}`;
