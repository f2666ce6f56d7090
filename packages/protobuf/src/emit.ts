// How each field of a message appears in the JSON form read back from the wire (the wire cannot tell
// an absent field from a zero one: Go writes every non-pointer field):
// - omitempty: only when not zero ("" / false / 0 / empty list or map), as Go's `omitempty`;
// - always: also when zero, as Go writes a field without omitempty (a required string, `allowed`,
//   a list's items);
// - presence: whenever it is on the wire, zero or not: a Go pointer (`controller: false`).
// Message fields are in the JSON form whenever they are on the wire.
//
// Some messages are this package's to know (below): apimachinery's, and JSONSchemaProps with the
// messages only it uses, which no kind's schema can spell out (it is recursive, and a
// CustomResourceDefinition's schema publishes openAPIV3Schema as an open object). A kind's own are
// derived from its definition when it registers: the fields its schema requires are written always
// (upstream's OpenAPI marks a field without omitempty as required), the fields it names as pointers
// by presence, and every list's `items` always.
import protobuf from 'protobufjs';
import { APIEXTENSIONS, META } from './schema.js';

export type Emit = 'omitempty' | 'always' | 'presence';

const SCHEMA_PROPS = `${APIEXTENSIONS}.JSONSchemaProps`;
const VALIDATION_RULE = `${APIEXTENSIONS}.ValidationRule`;

/** JSONSchemaProps and the messages only it uses, whose rules are known here rather than derived. */
const SCHEMA_FAMILY: ReadonlySet<string> = new Set(
  ['JSONSchemaProps', 'JSONSchemaPropsOrArray', 'JSONSchemaPropsOrBool', 'JSONSchemaPropsOrStringArray', 'JSON', 'ExternalDocumentation', 'ValidationRule'].map(
    (name) => `${APIEXTENSIONS}.${name}`,
  ),
);

const isKnown = (message: string): boolean => message.startsWith(`${META}.`) || SCHEMA_FAMILY.has(message);

/** Fields of the known messages that are not omitempty upstream. */
const KNOWN_ALWAYS: Record<string, readonly string[]> = {
  [`${META}.Condition`]: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  [`${META}.OwnerReference`]: ['apiVersion', 'kind', 'name', 'uid'],
  [`${META}.LabelSelectorRequirement`]: ['key', 'operator'],
  [`${META}.WatchEvent`]: ['type'],
  // Every JSONSchemaProps field is omitempty; a validation rule's rule is not.
  [VALIDATION_RULE]: ['rule'],
};

/** Fields of the known messages that are pointers upstream. */
const KNOWN_PRESENCE: Record<string, readonly string[]> = {
  [`${META}.ObjectMeta`]: ['deletionGracePeriodSeconds'],
  [`${META}.ListMeta`]: ['remainingItemCount'],
  [`${META}.OwnerReference`]: ['controller', 'blockOwnerDeletion'],
  [`${META}.DeleteOptions`]: ['gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'],
  [`${META}.Preconditions`]: ['uid', 'resourceVersion'],
  // The scalar pointers (*string, *float64, *int64, *bool) of upstream's types_jsonschema.go; its
  // pointer messages (default, items, not, additionalProperties, ...) are messages here, kept
  // whenever they are on the wire. x-kubernetes-preserve-unknown-fields: false is kept.
  [SCHEMA_PROPS]: [
    'ref',
    'maximum',
    'minimum',
    'multipleOf',
    'maxLength',
    'minLength',
    'maxItems',
    'minItems',
    'maxProperties',
    'minProperties',
    'xKubernetesPreserveUnknownFields',
    'xKubernetesListType',
    'xKubernetesMapType',
  ],
  [VALIDATION_RULE]: ['reason'],
};

/**
 * Message fields whose JSON form is inline in their parent's (Go's embedded structs with
 * `json:",inline"`): on the wire a message of its own, in JSON its fields are the parent's.
 */
const INLINE: Record<string, ReadonlySet<string>> = {
  'k8s.io.api.admissionregistration.v1.RuleWithOperations': new Set(['rule']),
  'k8s.io.api.admissionregistration.v1beta1.NamedRuleWithOperations': new Set(['ruleWithOperations']),
  'k8s.io.api.admissionregistration.v1alpha1.NamedRuleWithOperations': new Set(['ruleWithOperations']),
};

export const isInline = (message: string, field: string): boolean => INLINE[message]?.has(field) ?? false;

const POLICY_VERSIONS = ['v1beta1', 'v1alpha1'];

/** Field names that differ from their JSON names. */
export const JSON_NAMES: Record<string, Record<string, string>> = {
  // Upstream's .proto names these after the Go fields.
  ...Object.fromEntries(
    POLICY_VERSIONS.flatMap((version) => [
      [`k8s.io.api.admissionregistration.${version}.Validation`, { Expression: 'expression' }],
      [`k8s.io.api.admissionregistration.${version}.Variable`, { Name: 'name', Expression: 'expression' }],
    ]),
  ),
  'k8s.io.api.authentication.v1.BoundObjectReference': { uID: 'uid' },
  [SCHEMA_PROPS]: {
    schema: '$schema',
    ref: '$ref',
    xKubernetesPreserveUnknownFields: 'x-kubernetes-preserve-unknown-fields',
    xKubernetesEmbeddedResource: 'x-kubernetes-embedded-resource',
    xKubernetesIntOrString: 'x-kubernetes-int-or-string',
    xKubernetesListMapKeys: 'x-kubernetes-list-map-keys',
    xKubernetesListType: 'x-kubernetes-list-type',
    xKubernetesMapType: 'x-kubernetes-map-type',
    xKubernetesValidations: 'x-kubernetes-validations',
  },
};

export const jsonName = (message: string, field: string): string => JSON_NAMES[message]?.[field] ?? field;

interface Rules {
  always: ReadonlySet<string>;
  presence: ReadonlySet<string>;
}

const derived = new Map<string, Rules>();
/** Messages whose converters exist: their rules can no longer change. */
const compiled = new Set<string>();

export function emitOf(message: string, field: string): Emit {
  const rules = derived.get(message);
  if (KNOWN_ALWAYS[message]?.includes(field) || rules?.always.has(field)) return 'always';
  if (KNOWN_PRESENCE[message]?.includes(field) || rules?.presence.has(field)) return 'presence';
  return 'omitempty';
}

export function markCompiled(message: string): void {
  compiled.add(message);
}

export const fullName = (type: protobuf.Type): string => type.fullName.slice(1);

type Schema = Record<string, unknown>;
const asSchema = (value: unknown): Schema | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : undefined;

/**
 * Derives the rules of `root` and the messages within it from the kind's schema and pointer paths
 * (`spec.holderIdentity`; a list's members by the list's path, `spec.versions.deprecationWarning`).
 * The walk follows the schema's properties: a pointer path is met only where the schema spells out
 * the objects on its way, and one never met is refused rather than silently read as omitempty.
 * Messages shared by kinds must get the same rules from each.
 */
export function deriveEmitRules(root: protobuf.Type, schema: Schema, pointers: readonly string[]): void {
  const met = new Set<string>();
  const found: [string, Rules][] = [];
  const walk = (type: protobuf.Type, at: Schema, path: string): void => {
    const name = fullName(type);
    if (isKnown(name)) return;
    const required = Array.isArray(at.required) ? (at.required as unknown[]) : [];
    const properties = asSchema(at.properties) ?? {};
    const always = new Set<string>();
    const presence = new Set<string>();
    for (const field of type.fieldsArray) {
      if (isInline(name, field.name) && field.resolvedType instanceof protobuf.Type) {
        walk(field.resolvedType, at, path);
        continue;
      }
      const json = jsonName(name, field.name);
      const fieldPath = path ? `${path}.${json}` : json;
      if (required.includes(json)) always.add(field.name);
      if (pointers.includes(fieldPath)) {
        presence.add(field.name);
        met.add(fieldPath);
      }
      const resolved = field.resolvedType;
      const sub = asSchema(properties[json]);
      if (!(resolved instanceof protobuf.Type) || !sub) continue;
      const element = field.map ? asSchema(sub.additionalProperties) : field.repeated ? asSchema(sub.items) : sub;
      if (element) walk(resolved, element, fieldPath);
    }
    found.push([name, { always, presence }]);
  };
  walk(root, schema, '');
  const unmet = pointers.filter((path) => !met.has(path));
  if (unmet.length) throw new Error(`${fullName(root)}: pointer paths that name no field the schema reaches: ${unmet.join(', ')}`);
  for (const [name, rules] of found) settle(name, rules);
}

/** A list message: its items are always written. */
export function deriveListRules(list: protobuf.Type): void {
  settle(fullName(list), { always: new Set(['items']), presence: new Set() });
}

function settle(message: string, rules: Rules): void {
  const known = derived.get(message);
  if (known) {
    if (!sameSet(known.always, rules.always) || !sameSet(known.presence, rules.presence)) {
      throw new Error(`the kinds registered disagree about ${message}: always [${[...known.always]}] or [${[...rules.always]}], pointers [${[...known.presence]}] or [${[...rules.presence]}]`);
    }
    return;
  }
  if (compiled.has(message)) throw new Error(`${message} gets rules after its converter was compiled: register every kind before encoding or decoding`);
  derived.set(message, rules);
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((x) => b.has(x));
