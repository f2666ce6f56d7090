// What FlowSchema and PriorityLevelConfiguration share of upstream's strategies: the status is the
// server's (cleared on create, kept on update, written through the status subresource only), and
// the generation counts spec changes, judged after defaulting so that a spec sent without its
// defaults is no change.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, ObjectSubresource, StrategyContext } from '@plat/registry';
import type { FieldError } from '@plat/apimachinery';
import { validateFlowControlStatus } from './validation.js';

interface WithSpecAndStatus extends KubeObject {
  spec?: unknown;
  status?: unknown;
}

export function prepareForCreate(object: WithSpecAndStatus): void {
  delete object.status;
  object.metadata.generation = 1;
}

/** Keeps the old status; `setDefaults` first, then one more generation if the spec changed. */
export function prepareForUpdate<T extends WithSpecAndStatus>(object: T, old: T, setDefaults: (object: T) => void): void {
  if (old.status === undefined) delete object.status;
  else object.status = structuredClone(old.status);
  setDefaults(object);
  const generation = old.metadata.generation ?? 1;
  object.metadata.generation = isDeepStrictEqual(object.spec, old.spec) ? generation : generation + 1;
}

/**
 * The status subresource: only the status is taken, the spec and the metadata its writers own stay
 * the old object's (upstream's status strategies keep all of ObjectMeta but managedFields).
 */
export function statusSubresource<T extends WithSpecAndStatus>(): ObjectSubresource<T> {
  return {
    merge(object, old) {
      if (old.spec === undefined) delete object.spec;
      else object.spec = structuredClone(old.spec);
      for (const key of ['generation', 'labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
        if (old.metadata[key] === undefined) delete object.metadata[key];
        else (object.metadata as Record<string, unknown>)[key] = structuredClone(old.metadata[key]);
      }
      return object;
    },
    validateUpdate: (object: T, _old: T, _context: StrategyContext): FieldError[] => validateFlowControlStatus(object.status as Parameters<typeof validateFlowControlStatus>[0]),
  };
}
