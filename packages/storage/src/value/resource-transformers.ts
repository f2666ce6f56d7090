// Which transformer each resource's values go through, chosen by a key's group and resource as
// upstream chooses (an exact `resource.group` first, then `*.group`, then `*.*`). Resources not
// listed are stored as they are; reading one refuses encrypted bytes, as upstream's default does.
import type { ValueTransformer } from './transformer.js';

/** A group and resource as an EncryptionConfiguration names them: group "" is the core group, "*" any. */
export interface GroupResourcePattern {
  group: string;
  resource: string;
}

export class ResourceTransformers {
  private readonly byPattern = new Map<string, ValueTransformer>();
  /** The answer for each `/<group>/<resource>/` key prefix met so far. */
  private readonly byKeyPrefix = new Map<string, ValueTransformer | null>();

  constructor(entries: Iterable<readonly [GroupResourcePattern, ValueTransformer]>) {
    for (const [{ group, resource }, transformer] of entries) this.byPattern.set(`${resource}.${group}`, transformer);
  }

  /** The transformer for a group and resource, or undefined when its values are stored as they are. */
  forResource(group: string, resource: string): ValueTransformer | undefined {
    return this.byPattern.get(`${resource}.${group}`) ?? this.byPattern.get(`*.${group}`) ?? this.byPattern.get('*.*');
  }

  /** The transformer for a store key `/<group or "core">/<resource>/...`. */
  forKey(key: string): ValueTransformer | undefined {
    const groupEnd = key.indexOf('/', 1);
    const resourceEnd = groupEnd < 0 ? -1 : key.indexOf('/', groupEnd + 1);
    if (resourceEnd < 0) return undefined;
    const keyPrefix = key.slice(0, resourceEnd + 1);
    let found = this.byKeyPrefix.get(keyPrefix);
    if (found === undefined) {
      const group = key.slice(1, groupEnd);
      found = this.forResource(group === 'core' ? '' : group, key.slice(groupEnd + 1, resourceEnd)) ?? null;
      this.byKeyPrefix.set(keyPrefix, found);
    }
    return found ?? undefined;
  }
}
