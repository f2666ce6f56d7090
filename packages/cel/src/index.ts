// The expression language (1-conventions.md 2.8): Kubernetes 1.28's CEL environment, its static
// cost estimate and runtime cost tracking, and custom resource data as expression values.
export { CelEnvironment, CompiledExpression, type EnvironmentOptions } from './environment.js';
export { CompileError, ProgramError, type Issue } from './issues.js';
export type { Evaluation } from './interpreter.js';
export { EXPRESSION_TIME_LIMIT_MS, ExpressionTimer, INTERRUPTED } from './interrupt.js';
export { MAX_EXPRESSION_CODE_POINTS, MAX_PARSE_RECURSION_DEPTH, MAX_TREE_DEPTH } from './parse-limits.js';
export { MAX as UNBOUNDED_COST, type Estimate, type SizeEstimator } from './cost.js';
export * from './limits.js';
export * from './types.js';
export {
  ArrayList,
  Duration,
  ErrorValue,
  ListValue,
  LiteralMap,
  MapValue,
  OpaqueValue,
  Timestamp,
  TypeValue,
  UInt,
  typeName,
  valuesEqual,
  type Value,
} from './values.js';
export { escapeName, unescapeName } from './escaping.js';
export { additionalPropertiesOf, schemaDeclType, declTypeSizes, maxCardinality, withTypeAndObjectMeta, type DeclType, type SchemaNode } from './schema-types.js';
export { valueOf, SchemaObject } from './schema-values.js';
export { AuthorizerValue, AuthorizerType, ResourceCheckValue, ResourceCheckType, type CelAuthorizer } from './functions/authz.js';
export { formatDouble } from './functions/conversions.js';
export { unstructuredValue, UnstructuredMap, UnstructuredList } from './unstructured-values.js';
