// The limits and cost units of the expression language, as Kubernetes 1.28 sets them
// (k8s.io/apiserver pkg/apis/cel/config.go, cel-go common/cost.go): fixed numbers, so that a
// rule's cost is the same on every machine.

/** The runtime cost one evaluation of one expression may reach. */
export const PER_CALL_LIMIT = 1_000_000;
/** The runtime cost all the rules of one object's validation (or one policy binding) may reach together. */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** The request size that bounds, in estimates, data whose schema sets no bound. */
export const MAX_REQUEST_SIZE_BYTES = 3_145_728;
/** The longest message a messageExpression may produce. */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5_120;
/** The estimated cost (times its cardinality) one CRD rule may have. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** The estimated cost all the rules of one CRD version's schema may have together. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** The longest source line, in UTF-8 bytes, that cel-go shows beneath an error (common/error.go). */
export const MAX_SNIPPET_LENGTH = 16_384;

/** Cost units (cel-go common/cost.go, except where noted). */
export const COST = {
  /** An identifier, or the selection of a field. */
  selectAndIdent: 1,
  const: 0,
  /**
   * A list literal: 40, the specification's figure (1-conventions.md section 8), followed here
   * where cel-go's table (and so Kubernetes) says 10, in the estimate and at runtime alike (the two
   * must agree for the estimate to bound the runtime). The consequence: every list literal costs 30
   * more than upstream in estimates (TestCostEstimation's split case: 629190 here, 629160
   * upstream; a rule close to the static limits can be refused here and accepted there), and at
   * runtime each evaluation of one that is not a constant does too: map() and filter() append a
   * one-element literal per item, so `self.map(x, x + 1)` over 10 items costs 442 here, 142 there,
   * and meets the per-call limit sooner. A literal of constants costs nothing at runtime in both,
   * computed ahead of time (Kubernetes' OptOptimize).
   */
  listCreateBase: 40,
  mapCreateBase: 30,
  structCreateBase: 40,
  /** Per unit of string or bytes length, for operations that traverse it. */
  stringTraversalFactor: 0.1,
  /** Per character of a regular expression: a guess of four characters per state (cel-go's). */
  regexStringLengthFactor: 0.25,
  /** An authorization check: at most two of them fit in one expression's budget. */
  authzCheck: 350_000,
} as const;

/** Serialized sizes (k8s.io/apiserver pkg/cel/limits.go), for bounding data in estimates. */
export const SERIALIZED_SIZE = {
  maxDurationJSON: 32,
  maxDatetimeJSON: 32,
  minDurationJSON: 3,
  jsonDate: 12,
  minDatetimeJSON: 21,
  minString: 2,
  minBool: 4,
  minNumber: 1,
} as const;

/** Kubernetes' authorizer builders and accessors: each costs a nominal 1 (its checks cost authzCheck). */
export const AUTHZ_NOMINAL_FUNCTIONS: ReadonlySet<string> = new Set([
  'serviceAccount',
  'path',
  'group',
  'resource',
  'subresource',
  'namespace',
  'name',
  'allowed',
  'reason',
  'error',
  'errored',
]);

/** Kubernetes' list functions (and the strings' indexOf): each costs one traversal of its target. */
export const TRAVERSAL_FUNCTIONS: ReadonlySet<string> = new Set(['isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf']);
