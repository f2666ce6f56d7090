// The cel-spec conformance cases that do not pass, each with its reason. The test fails when a
// case listed here passes, when a case not listed fails, and when an entry matches no case, so
// that this file stays exactly the truth.
//
// A case is `file/section/name` (`#2` on a name repeated in its section); `file/section/*` is a
// whole section.

export interface Exclusion {
  readonly reason: string;
  readonly cases: readonly string[];
}

/** Cases of features Kubernetes 1.28's environment does not have: they do not count as applicable. */
export const NOT_APPLICABLE: readonly Exclusion[] = [
  {
    reason:
      'protobuf messages (TestAllTypes, the google.protobuf wrappers, Value and Any): Kubernetes builds no message values; ' +
      'its data are schema-typed objects, maps and lists',
    cases: [
      'comparisons/eq_literal/eq_dyn_json_null',
      'comparisons/eq_literal/not_eq_dyn_proto2_msg_null',
      'comparisons/eq_literal/not_eq_dyn_proto3_msg_null',
      'comparisons/eq_wrapper/*',
      'comparisons/ne_literal/ne_proto2',
      'comparisons/ne_literal/ne_proto3',
      'comparisons/ne_literal/ne_proto2_missing_fields_neq',
      'comparisons/ne_literal/ne_proto3_missing_fields_neq',
      'comparisons/ne_literal/ne_proto_nan_not_equal',
      'comparisons/ne_literal/ne_proto_different_types',
      'comparisons/ne_literal/ne_proto2_any_unpack',
      'comparisons/ne_literal/ne_proto2_any_unpack_bytewise_fallback',
      'comparisons/ne_literal/ne_proto3_any_unpack',
      'comparisons/ne_literal/ne_proto3_any_unpack_bytewise_fallback',
      'parse/nest/message_literal',
      'parse/repeat/select',
      'parse/repeat/message_literal',
    ],
  },
  {
    reason: "strings.quote: cel-go's strings extension from version 1; Kubernetes 1.28 has version 0",
    cases: ['string_ext/quote/*'],
  },
];

/** Applicable cases that fail, and why. */
export const KNOWN_FAILURES: readonly Exclusion[] = [
  {
    reason:
      'map literals as cel-go 0.16 (Kubernetes 1.28) builds them: double and null keys allowed, a repeated key keeping its ' +
      'last value; the specification asks for errors, and cel-go 0.16 skips these three cases in its own conformance run',
    cases: [
      'fields/qualified_identifier_resolution/map_key_float',
      'fields/qualified_identifier_resolution/map_key_null',
      'fields/qualified_identifier_resolution/map_value_repeat_key',
    ],
  },
  {
    reason:
      "a duration's getMilliseconds() is the whole duration in milliseconds in cel-go 0.16 (Kubernetes 1.28), not the " +
      "milliseconds within its second as the specification says; cel-go 0.16 skips this case in its own conformance run",
    cases: ['timestamps/duration_converters/get_milliseconds'],
  },
];

/** The exclusion a case falls under in `list`, if any. */
export function exclusionOf(list: readonly Exclusion[], id: string): Exclusion | undefined {
  return list.find((e) => e.cases.some((pattern) => matches(pattern, id)));
}

export function matches(pattern: string, id: string): boolean {
  return pattern.endsWith('/*') ? id.startsWith(pattern.slice(0, -1)) : pattern === id;
}
