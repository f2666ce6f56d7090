// The order classification tries FlowSchemas in (upstream's digestFlowSchemasLocked): those whose
// priority level is missing or broken ("dangling") are skipped; the rest go by matchingPrecedence,
// then name; a missing exempt or catch-all schema is supplied, first or last. And the Dangling
// condition each schema should carry.
import { goQuote } from '@plat/apimachinery';
import { mandatoryFlowSchemaCatchAll, mandatoryFlowSchemaExempt } from './mandatory.js';
import { FLOW_SCHEMA_CATCH_ALL, FLOW_SCHEMA_EXEMPT, type FlowSchema } from './types.js';

export function flowSchemaSequence(schemas: FlowSchema[], levelUsable: (name: string) => boolean): FlowSchema[] {
  const usable = schemas.filter((fs) => levelUsable(fs.spec.priorityLevelConfiguration.name));
  usable.sort((a, b) => a.spec.matchingPrecedence - b.spec.matchingPrecedence || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  if (!usable.some((fs) => fs.metadata.name === FLOW_SCHEMA_EXEMPT)) usable.unshift(mandatoryFlowSchemaExempt);
  if (!usable.some((fs) => fs.metadata.name === FLOW_SCHEMA_CATCH_ALL)) usable.push(mandatoryFlowSchemaCatchAll);
  return usable;
}

export interface DanglingCondition {
  type: 'Dangling';
  status: 'True' | 'False';
  reason: 'NotFound' | 'Found';
  message: string;
}

/** The Dangling condition the config consumer writes on a FlowSchema, upstream's words. */
export function danglingCondition(fs: FlowSchema, levelUsable: boolean): DanglingCondition {
  const pl = goQuote(fs.spec.priorityLevelConfiguration.name);
  return levelUsable
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${pl} and it exists` }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${pl} but there is no such object` };
}
