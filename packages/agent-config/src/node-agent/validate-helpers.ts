// Small checks that NodeAgentConfiguration's validators share: ranges, signs and feature-gate requirements.
import { forbidden, invalid, newPath, parseQuantity, type FieldError, type FieldPath, type Quantity } from '@plat/apimachinery';
import type { AgentFeature, FeatureGateSet } from '../feature-gates.js';
import type { NodeAgentConfiguration } from './schema.js';

/** What every validator receives: the defaulted configuration and the feature gates it runs with. */
export interface ValidationContext {
  config: NodeAgentConfiguration;
  gates: FeatureGateSet;
}

export const path = newPath;

export function inRange(errors: FieldError[], at: FieldPath, value: number | undefined, min: number, max: number): void {
  const v = value ?? 0;
  if (v < min || v > max) errors.push(invalid(at, v, `must be between ${min} and ${max}, inclusive`));
}

export function notNegative(errors: FieldError[], at: FieldPath, value: number | undefined): void {
  if ((value ?? 0) < 0) errors.push(invalid(at, value, 'must not be a negative number'));
}

/** Forbids a setting unless every named gate is on. */
export function requireGates(errors: FieldError[], gates: FeatureGateSet, at: FieldPath, ...features: AgentFeature[]): void {
  const off = features.filter((feature) => !gates.enabled(feature));
  if (off.length) errors.push(forbidden(at, `requires feature gate${off.length > 1 ? 's' : ''} ${off.join(' and ')}`));
}

/** The quantity, or undefined after recording why the text is not one. */
export function quantity(errors: FieldError[], at: FieldPath, text: string): Quantity | undefined {
  try {
    return parseQuantity(text);
  } catch (error) {
    errors.push(invalid(at, text, (error as Error).message));
    return undefined;
  }
}

export const hasEntries = (value: object | undefined): boolean => value !== undefined && Object.keys(value).length > 0;
