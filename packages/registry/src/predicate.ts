// Which objects a list or watch returns: its label and field selectors as one filter.
import { newBadRequest, parseFieldSelector, parseLabelSelector, SelectorParseError, type FieldSelector, type LabelSelector } from '@plat/apimachinery';
import type { KubeObject } from './definition.js';
import type { ResolvedResource } from './resolved.js';

export interface Predicate<T extends KubeObject = KubeObject> {
  /** Absent when nothing is selected on: every object matches. */
  filter?: (object: T) => boolean;
  /** The name a fieldSelector `metadata.name=<name>` pins, for single-object watches. */
  name?: string;
}

/** The fields a field selector may name, with their values for `object`. */
export function selectableFields<T extends KubeObject>(resource: ResolvedResource<T>, object: T): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': object.metadata.name ?? '' };
  if (resource.namespaced) fields['metadata.namespace'] = object.metadata.namespace ?? '';
  return { ...fields, ...resource.definition.selectableFields?.(object) };
}

function parse<T>(parser: (text: string) => T, text: string): T {
  try {
    return parser(text);
  } catch (error) {
    if (error instanceof SelectorParseError) throw newBadRequest(error.message);
    throw error;
  }
}

export function buildPredicate<T extends KubeObject>(resource: ResolvedResource<T>, labelSelector = '', fieldSelector = ''): Predicate<T> {
  const labels: LabelSelector | undefined = labelSelector ? parse(parseLabelSelector, labelSelector) : undefined;
  const fields: FieldSelector | undefined = fieldSelector ? parse(parseFieldSelector, fieldSelector) : undefined;
  if (fields) {
    // Probe with an empty object of the kind: the field names it offers are the allowed ones.
    const known = new Set(Object.keys(selectableFields(resource, { metadata: {} } as T)));
    for (const requirement of fields.requirements) {
      if (!known.has(requirement.field)) throw newBadRequest(`field label not supported: ${requirement.field}`);
    }
  }
  const matchLabels = labels && !labels.empty ? labels : undefined;
  const matchFields = fields && !fields.empty ? fields : undefined;
  if (!matchLabels && !matchFields) return {};
  const name = matchFields?.requiresExactMatch('metadata.name');
  return {
    filter: (object) =>
      (!matchLabels || matchLabels.matches(object.metadata.labels ?? {})) &&
      (!matchFields || matchFields.matches(selectableFields(resource, object))),
    ...(name !== undefined && { name }),
  };
}
