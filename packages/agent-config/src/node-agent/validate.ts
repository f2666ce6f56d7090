// NodeAgentConfiguration validation: every range and rule of spec section 2.2, all errors together, each with its field path.
import type { FieldError } from '@plat/apimachinery';
import { FeatureGateSet } from '../feature-gates.js';
import type { NodeAgentConfiguration } from './schema.js';
import type { ValidationContext } from './validate-helpers.js';
import { validateAllocatable } from './validate-allocatable.js';
import { validateEviction } from './validate-eviction.js';
import { validateImages } from './validate-images.js';
import { validateLimits } from './validate-limits.js';
import { validateLogging } from './validate-logging.js';
import { validateManagers } from './validate-managers.js';
import { validateNode } from './validate-node.js';
import { validateServer } from './validate-server.js';
import { validateShutdown } from './validate-shutdown.js';
import { validateTracing } from './validate-tracing.js';

const validators: ((context: ValidationContext) => FieldError[])[] = [
  validateServer,
  validateLimits,
  validateImages,
  validateManagers,
  validateAllocatable,
  validateEviction,
  validateShutdown,
  validateLogging,
  validateTracing,
  validateNode,
];

export interface ValidateOptions {
  /** The gates before the file's featureGates apply; the agent's built-in defaults unless a test says otherwise. */
  featureGates?: FeatureGateSet;
}

/** Validates a defaulted configuration; an empty list means it is valid. */
export function validateNodeAgentConfiguration(config: NodeAgentConfiguration, options: ValidateOptions = {}): FieldError[] {
  const { gates, errors } = (options.featureGates ?? FeatureGateSet.of()).withOverrides(config.featureGates);
  const context: ValidationContext = { config, gates };
  return [...errors, ...validators.flatMap((validate) => validate(context))];
}

/** What the configuration's featureGates warn about (GA and deprecated gates it sets), for the agent to print. */
export function nodeAgentConfigurationWarnings(config: NodeAgentConfiguration, options: ValidateOptions = {}): string[] {
  return (options.featureGates ?? FeatureGateSet.of()).withOverrides(config.featureGates).warnings;
}
