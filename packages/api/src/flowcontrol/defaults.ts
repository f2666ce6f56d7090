// Upstream 1.28's defaults for flowcontrol v1beta3 and v1beta2 (pkg/apis/flowcontrol/<version>/
// defaults.go): a FlowSchema's matchingPrecedence 0 -> 1000; a Limited level's shares 0 -> 30
// (unconditionally: 1.29's annotation that keeps an explicit 0 does not exist yet) and
// lendablePercent nil -> 0; queuing 0 -> 64 queues, hand of 8, 50 per queue; an Exempt level's
// exempt struct, where present, nominalConcurrencyShares and lendablePercent nil -> 0.
import { sharesField, type FlowControlVersion, type FlowSchemaObject, type PriorityLevelConfigurationObject } from './types.js';

export const DEFAULT_MATCHING_PRECEDENCE = 1000;
export const DEFAULT_CONCURRENCY_SHARES = 30;
export const DEFAULT_QUEUES = 64;
export const DEFAULT_HAND_SIZE = 8;
export const DEFAULT_QUEUE_LENGTH_LIMIT = 50;

export function setFlowSchemaDefaults(flowSchema: FlowSchemaObject): void {
  const spec = flowSchema.spec;
  // Go's zero spec is defaulted too: matchingPrecedence is a plain int32.
  if (!spec) {
    flowSchema.spec = { matchingPrecedence: DEFAULT_MATCHING_PRECEDENCE };
    return;
  }
  if (!spec.matchingPrecedence) spec.matchingPrecedence = DEFAULT_MATCHING_PRECEDENCE;
}

export function setPriorityLevelConfigurationDefaults(level: PriorityLevelConfigurationObject, version: FlowControlVersion): void {
  const limited = level.spec?.limited;
  if (limited) {
    const shares = sharesField(version);
    if (!limited[shares]) limited[shares] = DEFAULT_CONCURRENCY_SHARES;
    limited.lendablePercent ??= 0;
    const queuing = limited.limitResponse?.queuing;
    if (queuing) {
      if (!queuing.handSize) queuing.handSize = DEFAULT_HAND_SIZE;
      if (!queuing.queues) queuing.queues = DEFAULT_QUEUES;
      if (!queuing.queueLengthLimit) queuing.queueLengthLimit = DEFAULT_QUEUE_LENGTH_LIMIT;
    }
  }
  const exempt = level.spec?.exempt;
  if (exempt) {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
}
