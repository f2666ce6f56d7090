// A label query over a set of objects, as written in an object (matchLabels and matchExpressions).
import type { JSONSchema } from '@plat/registry';
import { atomicList, atomicStringList, objectSchema, stringField, stringMap } from './schema.js';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

const labelSelectorRequirementSchema: JSONSchema = objectSchema(
  'A selector requirement: a key, an operator, and values the operator relates the key to.',
  {
    key: stringField('The label key the selector applies to.'),
    operator: stringField("The key's relationship to the values: In, NotIn, Exists or DoesNotExist."),
    values: atomicStringList(
      'Values for In and NotIn (non-empty); must be empty for Exists and DoesNotExist.',
    ),
  },
  { required: ['key', 'operator'] },
);

export const labelSelectorSchema: JSONSchema = objectSchema(
  'A label query over a set of resources; the requirements are ANDed. An empty selector matches all objects.',
  {
    matchLabels: stringMap('Each {key, value} pair is the requirement "key In (value)".'),
    matchExpressions: atomicList('Label selector requirements, ANDed.', labelSelectorRequirementSchema),
  },
  { mapType: 'atomic' },
);
