// v1beta2 and v1beta3 PriorityLevelConfigurations are one object: upstream converts both to one
// internal form (v1beta3's, stored as v1beta3), and the only difference is the Limited level's
// shares field, assuredConcurrencyShares in v1beta2, nominalConcurrencyShares in v1beta3.
import type { KubeObject } from '@plat/registry';
import type { PriorityLevelConfigurationObject } from './types.js';

/** A copy of `object` with spec.limited's shares field renamed `from` -> `to`, in place of the old key. */
function renameShares(object: PriorityLevelConfigurationObject, from: string, to: string): PriorityLevelConfigurationObject {
  const copy = structuredClone(object);
  const limited = copy.spec?.limited as Record<string, unknown> | undefined;
  if (limited && from in limited) {
    // Rebuilt so that the renamed field keeps its place (the first, as in both versions' structs).
    const renamed: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(limited)) renamed[key === from ? to : key] = value;
    copy.spec!.limited = renamed;
  }
  return copy;
}

/** The v1beta3 form of a v1beta2 PriorityLevelConfiguration (a new object). */
export const priorityLevelToV1beta3 = (object: PriorityLevelConfigurationObject): PriorityLevelConfigurationObject =>
  renameShares(object, 'assuredConcurrencyShares', 'nominalConcurrencyShares');

/** The v1beta2 form of a v1beta3 PriorityLevelConfiguration (a new object). */
export const priorityLevelToV1beta2 = (object: KubeObject): PriorityLevelConfigurationObject =>
  renameShares(object as PriorityLevelConfigurationObject, 'nominalConcurrencyShares', 'assuredConcurrencyShares');
