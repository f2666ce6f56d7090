// Drives a definition's hooks in the order the generic store calls them, for the kinds' tests.
import type { FieldError } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition, StrategyContext } from '@plat/registry';

export const plat: StrategyContext = { domain: 'plat.io' };
export const k8s: StrategyContext = { domain: 'k8s.io' };

const copy = <T>(value: T): T => structuredClone(value);

/** prepareForCreate, default, validate: the object as stored and its errors. */
export function create<T extends KubeObject>(
  definition: ResourceDefinition<T>,
  input: T,
  context: StrategyContext = plat,
): { object: T; errors: FieldError[] } {
  const object = copy(input);
  definition.strategy.prepareForCreate?.(object, context);
  definition.strategy.default?.(object, context);
  return { object, errors: definition.strategy.validate(object, context) };
}

/** prepareForUpdate, default, validateUpdate. */
export function update<T extends KubeObject>(
  definition: ResourceDefinition<T>,
  input: T,
  old: T,
  context: StrategyContext = plat,
): { object: T; errors: FieldError[] } {
  const object = copy(input);
  definition.strategy.prepareForUpdate?.(object, old, context);
  definition.strategy.default?.(object, context);
  return { object, errors: definition.strategy.validateUpdate(object, old, context) };
}

/** Errors as "Type field" strings, for comparing whole lists in tables. */
export const summary = (errors: readonly FieldError[]): string[] => errors.map((e) => `${e.type} ${e.field}`);

/** The errors as the 422 would print them. */
export const messages = (errors: readonly FieldError[]): string[] => errors.map(String);
