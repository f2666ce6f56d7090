// The expression environment of a ValidatingAdmissionPolicy (upstream's admission/plugin/cel
// compile.go and composition.go): the variables its expressions read, their types, and how each
// expression is compiled and checked for the type it must give. Shared by the policy's validation
// (which reports what does not compile) and the admission plugin (which runs what does).
import {
  AuthorizerType,
  BoolType,
  CelEnvironment,
  CompileError,
  DynType,
  IntType,
  ResourceCheckType,
  StringType,
  TimestampType,
  listOf,
  mapOf,
  objectType,
  type CelType,
  type CompiledExpression,
  type SchemaNode,
} from '@plat/cel';

export const OBJECT = 'object';
export const OLD_OBJECT = 'oldObject';
export const PARAMS = 'params';
export const REQUEST = 'request';
export const NAMESPACE_OBJECT = 'namespaceObject';
export const AUTHORIZER = 'authorizer';
export const REQUEST_RESOURCE_AUTHORIZER = 'authorizer.requestResource';
export const VARIABLES = 'variables';

const fields = (entries: [string, CelType][]): Map<string, CelType> => new Map(entries);

const gvk = objectType('kubernetes.GroupVersionKind', fields([['group', StringType], ['version', StringType], ['kind', StringType]]));
const gvr = objectType('kubernetes.GroupVersionResource', fields([['group', StringType], ['version', StringType], ['resource', StringType]]));

/** upstream's BuildRequestType: an AdmissionRequest without uid, object and oldObject (variables of their own). */
export const requestType: CelType = objectType(
  'kubernetes.AdmissionRequest',
  fields([
    ['kind', gvk],
    ['resource', gvr],
    ['subResource', StringType],
    ['requestKind', gvk],
    ['requestResource', gvr],
    ['requestSubResource', StringType],
    ['name', StringType],
    ['namespace', StringType],
    ['operation', StringType],
    [
      'userInfo',
      objectType(
        'kubernetes.UserInfo',
        fields([
          ['username', StringType],
          ['uid', StringType],
          ['groups', listOf(StringType)],
          ['extra', mapOf(StringType, listOf(StringType))],
        ]),
      ),
    ],
    ['dryRun', BoolType],
    ['options', DynType],
  ]),
);

const stringMapSchema: SchemaNode = { type: 'object', additionalProperties: { type: 'string' } };
const stringListSchema: SchemaNode = { type: 'array', items: { type: 'string' } };

/**
 * upstream's BuildNamespaceType, as the schema its value is read through: the namespace without
 * managedFields and ownerReferences. The metadata field upstream declares as `UID` (its JSON is
 * `uid`) is declared the same, so that expressions compile as they do there.
 */
export const namespaceSchema: SchemaNode = {
  type: 'object',
  properties: {
    metadata: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        generateName: { type: 'string' },
        namespace: { type: 'string' },
        labels: stringMapSchema,
        annotations: stringMapSchema,
        UID: { type: 'string' },
        creationTimestamp: { type: 'string', format: 'date-time' },
        deletionGracePeriodSeconds: { type: 'integer' },
        deletionTimestamp: { type: 'string', format: 'date-time' },
        generation: { type: 'integer' },
        resourceVersion: { type: 'string' },
        finalizers: stringListSchema,
      },
    },
    spec: { type: 'object', properties: { finalizers: stringListSchema } },
    status: {
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              status: { type: 'string' },
              type: { type: 'string' },
              lastTransitionTime: { type: 'string', format: 'date-time' },
              message: { type: 'string' },
              reason: { type: 'string' },
            },
          },
        },
        phase: { type: 'string' },
      },
    },
  },
};

const stringMap = mapOf(StringType, StringType);
const stringList = listOf(StringType);

export const namespaceType: CelType = objectType(
  'kubernetes.Namespace',
  fields([
    [
      'metadata',
      objectType(
        'kubernetes.NamespaceMetadata',
        fields([
          ['name', StringType],
          ['generateName', StringType],
          ['namespace', StringType],
          ['labels', stringMap],
          ['annotations', stringMap],
          ['UID', StringType],
          ['creationTimestamp', TimestampType],
          ['deletionGracePeriodSeconds', IntType],
          ['deletionTimestamp', TimestampType],
          ['generation', IntType],
          ['resourceVersion', StringType],
          ['finalizers', stringList],
        ]),
      ),
    ],
    ['spec', objectType('kubernetes.NamespaceSpec', fields([['finalizers', stringList]]))],
    [
      'status',
      objectType(
        'kubernetes.NamespaceStatus',
        fields([
          [
            'conditions',
            listOf(
              objectType(
                'kubernetes.NamespaceCondition',
                fields([
                  ['status', StringType],
                  ['type', StringType],
                  ['lastTransitionTime', TimestampType],
                  ['message', StringType],
                  ['reason', StringType],
                ]),
              ),
            ),
          ],
          ['phase', StringType],
        ]),
      ),
    ],
  ]),
);

/** What an expression must evaluate to, by its field (upstream's ReturnTypes). */
export type ExpressionRole = 'validation' | 'messageExpression' | 'auditAnnotation' | 'matchCondition' | 'variable';

const returnTypes: Record<ExpressionRole, readonly string[] | undefined> = {
  validation: ['bool'],
  matchCondition: ['bool'],
  messageExpression: ['string'],
  auditAnnotation: ['string', 'null_type'],
  variable: undefined,
};

/** Why an expression cannot be used: upstream's cel.Error, Invalid or Required. */
export interface PolicyExpressionError {
  type: 'Invalid' | 'Required';
  detail: string;
}

export interface PolicyExpression {
  readonly source: string;
  readonly program?: CompiledExpression;
  readonly error?: PolicyExpressionError;
}

/** Which optional variables an expression may read (upstream's OptionalVariableDeclarations). */
export interface PolicyVariableOptions {
  hasParams: boolean;
  hasAuthorizer: boolean;
}

/**
 * Compiles a policy's expressions. With composition (upstream's CompositedCompiler, used whenever a
 * policy has variables, and always when policies are enforced), `variables` is declared with a
 * field per variable compiled so far, each of type dyn, so that a variable sees the ones before it.
 */
export class PolicyCompiler {
  private readonly variableNames: string[] = [];
  private readonly environments = new Map<string, CelEnvironment>();

  constructor(readonly composition: boolean) {}

  /** Declares a variable (a field of `variables` from now on) and compiles its expression. */
  compileVariable(name: string, source: string, options: PolicyVariableOptions): PolicyExpression {
    if (!this.composition) throw new Error('variables need a composing compiler');
    if (!this.variableNames.includes(name)) this.variableNames.push(name);
    this.environments.clear();
    return this.compile(source, 'variable', options);
  }

  compile(source: string, role: ExpressionRole, options: PolicyVariableOptions): PolicyExpression {
    let program: CompiledExpression;
    try {
      program = this.environment(options).compile(source);
    } catch (error) {
      if (error instanceof CompileError) return { source, error: { type: 'Invalid', detail: `compilation failed: ${error.message}` } };
      throw error;
    }
    const wanted = returnTypes[role];
    if (wanted && !wanted.includes(program.outputType.kind)) {
      const detail = wanted.length === 1 ? `must evaluate to ${wanted[0]}` : `must evaluate to one of [${wanted.join(' ')}]`;
      return { source, error: { type: 'Invalid', detail } };
    }
    return { source, program };
  }

  private environment(options: PolicyVariableOptions): CelEnvironment {
    const key = `${options.hasParams}/${options.hasAuthorizer}`;
    let env = this.environments.get(key);
    if (!env) {
      env = new CelEnvironment(policyVariables(options, this.composition ? this.variableNames : undefined));
      this.environments.set(key, env);
    }
    return env;
  }
}

/** The variables declared for a policy's expressions; `variables` only with composition. */
export function policyVariables(options: PolicyVariableOptions, variableNames?: readonly string[], object: CelType = DynType, params: CelType = DynType): Map<string, CelType> {
  const declared = new Map<string, CelType>([
    [OBJECT, object],
    [OLD_OBJECT, object],
    [NAMESPACE_OBJECT, namespaceType],
    [REQUEST, requestType],
  ]);
  if (options.hasParams) declared.set(PARAMS, params);
  if (options.hasAuthorizer) {
    declared.set(AUTHORIZER, AuthorizerType);
    declared.set(REQUEST_RESOURCE_AUTHORIZER, ResourceCheckType);
  }
  if (variableNames) declared.set(VARIABLES, objectType('kubernetes.variables', new Map(variableNames.map((name) => [name, DynType]))));
  return declared;
}
