// Pure API machinery: Status errors, field errors and paths, durations.
export * from './status.js';
export * from './field-errors.js';
export { parseDuration, formatDuration } from './duration.js';
export { goQuote } from './go-format.js';
export { goStringSlice } from './go-string-slice.js';
export {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNSSubdomain,
  nameIsDNSLabel,
  nameIsPathSegment,
  type ValidateNameFunc,
} from './validation/names.js';
export {
  validateLabels,
  validateAnnotations,
  validateFinalizers,
  validateOwnerReferences,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type ObjectMetaFields,
  type ObjectMetaOptions,
} from './validation/object-meta.js';
export { isCanonicalIP, ipAddressNameErrors } from './validation/ip.js';
export { parseGoIP, IPV4_MAPPED_PREFIX, type IP } from './validation/go-ip.js';
export { SelectorParseError } from './selector-parse-error.js';
export { LabelSelector, parseLabelSelector } from './labels/selector.js';
export type { LabelRequirement, LabelSelectorOperator } from './labels/requirement.js';
export { labelSelectorFromObject, type LabelSelectorObject } from './labels/from-object.js';
export { validateLabelSelectorObject } from './labels/validate-object.js';
export { FieldSelector, parseFieldSelector, type FieldRequirement } from './fields/selector.js';
export { Quantity, QuantityError, parseQuantity, type QuantityFormat } from './quantity.js';
export { FlagError, commandLineOrExit, deprecatedFlag, flag, parseFlags, usage, type FlagDef, type FlagSpecs, type FlagValues, type ParsedFlags } from './flags.js';
export type { KubeObject, ObjectMeta, OwnerReference } from './object.js';
export { MAX_NESTING_DEPTH, MAX_OBJECT_BYTES, depthExceededMessage, exceededJsonLimit } from './json-limits.js';
export { MAX_HEADER_BYTES } from './header-limits.js';
export { isInexactNumberLiteral, tagNumberLiteral, taggedNumberLiteral } from './exact-number.js';
export type { UserInfo } from './types/user.js';
export type { AccessAttributes, AccessDecision, AccessRules, Decision, NonResourceRule, ResourceRule } from './types/access.js';
export type { PolicyRule, RoleRef, Subject } from './types/rbac.js';
export type { Lease, LeaseSpec } from './types/lease.js';
export { compareKubeVersions } from './version-priority.js';
export { goURLEscapedPath, goURLHostname, goURLPort, goURLQuery, parseGoRequestURI, parseGoURL, type GoURL } from './go-url.js';
