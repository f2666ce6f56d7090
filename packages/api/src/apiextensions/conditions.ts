// A CustomResourceDefinition's status conditions, set as upstream's helpers set them: a condition's
// lastTransitionTime changes only when its status does.
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from './types.js';

export function findCondition(crd: CustomResourceDefinition, type: string): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((condition) => condition.type === type);
}

export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/**
 * Sets a condition in place: a new one gets `now` as its transition time; an existing one keeps its
 * time unless its status changes, and takes the new reason and message.
 */
export function setCondition(crd: CustomResourceDefinition, condition: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>, now: string): void {
  const status = (crd.status ??= {});
  const conditions = (status.conditions ??= []);
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    conditions.push({ ...condition, lastTransitionTime: now });
    return;
  }
  if (existing.status !== condition.status) existing.lastTransitionTime = now;
  existing.status = condition.status;
  if (condition.reason === undefined) delete existing.reason;
  else existing.reason = condition.reason;
  if (condition.message === undefined) delete existing.message;
  else existing.message = condition.message;
}

/** Whether two conditions say the same (type, status, reason and message; not the time). */
export function sameCondition(a: CustomResourceDefinitionCondition | undefined, b: CustomResourceDefinitionCondition | undefined): boolean {
  if (!a || !b) return a === b;
  return a.type === b.type && a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}
