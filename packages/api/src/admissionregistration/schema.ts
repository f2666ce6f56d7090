// The schemas of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding, as upstream's
// OpenAPI gives them (list types and struct types from its markers); v1beta1 and v1alpha1 share them.
import type { JSONSchema } from '@plat/registry';
import { labelSelectorSchema } from '../common/label-selector.js';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicList, atomicStringList, integerField, objectSchema, stringField, timeField } from '../common/schema.js';

/** A list keyed by `name`: apply and strategic merge patch merge its items by name. */
const namedList = (description: string, items: JSONSchema): JSONSchema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
  'x-kubernetes-patch-merge-key': 'name',
  'x-kubernetes-patch-strategy': 'merge',
});

const namedRuleWithOperationsSchema = objectSchema(
  'A rule over operations on resources, limited to resourceNames when it names any.',
  {
    resourceNames: atomicStringList('The names the rule applies to; empty: every name.'),
    operations: atomicStringList('The operations the rule cares about: CREATE, UPDATE, DELETE, CONNECT, or * for all.'),
    apiGroups: atomicStringList('The API groups the resources belong to; "*" is all groups, "" the core group.'),
    apiVersions: atomicStringList('The API versions the resources belong to; "*" is all versions.'),
    resources: atomicStringList('The resources the rule applies to: "pods", "pods/log", "*", "*/scale"...'),
    scope: stringField('"Cluster", "Namespaced" or "*" (default): the scope of the resources the rule matches.'),
  },
  { mapType: 'atomic' },
);

export const matchResourcesSchema = objectSchema(
  'Which requests a policy or binding applies to: resources by rules, selected by their namespace and labels.',
  {
    namespaceSelector: {
      ...labelSelectorSchema,
      description: 'Whether to run on an object by its namespace\'s labels; an empty selector (default) matches every namespace.',
    },
    objectSelector: { ...labelSelectorSchema, description: 'Whether to run by the object\'s labels (new or old); empty (default) matches every object.' },
    resourceRules: atomicList('The resources and operations matched.', namedRuleWithOperationsSchema),
    excludeResourceRules: atomicList('Resources and operations not matched, whatever resourceRules say.', namedRuleWithOperationsSchema),
    matchPolicy: stringField('Exact, or Equivalent (default): whether a request through an equivalent resource matches too.'),
  },
  { mapType: 'atomic' },
);

const validationSchema = objectSchema(
  'A CEL expression that must evaluate to true for the request to be valid.',
  {
    expression: stringField('The CEL expression; it must evaluate to a bool.'),
    message: stringField('The message when the expression is false.'),
    reason: stringField('Unauthorized, Forbidden, Invalid (default) or RequestEntityTooLarge: the reason and code of a denial.'),
    messageExpression: stringField('A CEL expression giving the message when the expression is false; it must evaluate to a string.'),
  },
  { required: ['expression'] },
);

const auditAnnotationSchema = objectSchema(
  'An audit annotation the policy adds to the request\'s audit event.',
  {
    key: stringField('The key, combined with the policy name as <policy>/<key>.'),
    valueExpression: stringField('A CEL expression giving the value: a string, or null to add nothing.'),
  },
  { required: ['key', 'valueExpression'] },
);

const matchConditionSchema = objectSchema(
  'A condition a request must meet for the policy to apply.',
  {
    name: stringField('An identifier for this condition.'),
    expression: stringField('A CEL expression that must evaluate to a bool.'),
  },
  { required: ['name', 'expression'] },
);

const variableSchema = objectSchema(
  'A named expression, read by the other expressions as variables.<name>.',
  {
    name: stringField('The variable\'s name: a CEL identifier.'),
    expression: stringField('The CEL expression giving the variable\'s value.'),
  },
  { required: ['name', 'expression'] },
);

const paramKindSchema = objectSchema(
  'The kind of the policy\'s parameter resource.',
  {
    apiVersion: stringField('The API group version: "group/version", or "version" for the core group.'),
    kind: stringField('The kind.'),
  },
  { mapType: 'atomic' },
);

const conditionSchema = objectSchema(
  'One aspect of the current state of the object.',
  {
    type: stringField('The type of the condition, in CamelCase.'),
    status: stringField('True, False or Unknown.'),
    observedGeneration: integerField('The generation the condition was set with.', 'int64'),
    lastTransitionTime: timeField('When the condition last changed from one status to another.'),
    reason: stringField('Why the condition last changed, in CamelCase.'),
    message: stringField('What the transition means, for people.'),
  },
  { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
);

const expressionWarningSchema = objectSchema(
  'A warning about one expression of the policy.',
  {
    fieldRef: stringField('The path of the expression\'s field, such as spec.validations[0].expression.'),
    warning: stringField('What type checking found.'),
  },
  { required: ['fieldRef', 'warning'] },
);

export const validatingAdmissionPolicySchema = kindSchema(
  'A policy of CEL expressions that requests must pass, applied to resources through its bindings.',
  {
    spec: objectSchema('What the policy checks.', {
      paramKind: paramKindSchema,
      matchConstraints: matchResourcesSchema,
      validations: atomicList('The expressions a request must pass.', validationSchema),
      failurePolicy: stringField('Fail (default) or Ignore: what happens when an expression cannot be evaluated.'),
      auditAnnotations: atomicList('Audit annotations the policy adds.', auditAnnotationSchema),
      matchConditions: namedList('Conditions a request must meet for the policy to apply; at most 64.', matchConditionSchema),
      variables: namedList('Named expressions the others read as variables.<name>.', variableSchema),
    }),
    status: objectSchema('What the server observed of the policy.', {
      observedGeneration: integerField('The generation the server has checked.', 'int64'),
      typeChecking: objectSchema('The results of type checking the expressions.', {
        expressionWarnings: atomicList('Type checking warnings, one per expression.', expressionWarningSchema),
      }),
      conditions: {
        ...namedList('The latest observations of the policy\'s state.', conditionSchema),
        'x-kubernetes-list-map-keys': ['type'],
        'x-kubernetes-patch-merge-key': 'type',
      },
    }),
  },
);

export const validatingAdmissionPolicyBindingSchema = kindSchema(
  'Binds a ValidatingAdmissionPolicy to parameters and resources, with the actions taken when it fails.',
  {
    spec: objectSchema('What the binding binds.', {
      policyName: stringField('The name of the ValidatingAdmissionPolicy bound.'),
      paramRef: objectSchema(
        'The parameter resource or resources the policy is evaluated with.',
        {
          name: stringField('The name of the parameter resource.'),
          namespace: stringField('The namespace of the parameter resources; empty: the request\'s namespace.'),
          selector: { ...labelSelectorSchema, description: 'Selects the parameter resources by label; the policy is evaluated with each.' },
          parameterNotFoundAction: stringField('Allow, or Deny: what happens when no parameter resource is found.'),
        },
        { mapType: 'atomic' },
      ),
      matchResources: { ...matchResourcesSchema, description: 'Narrows the resources the policy applies to through this binding.' },
      validationActions: {
        type: 'array',
        description: 'What a failed validation does: Deny, Warn and/or Audit (not both Deny and Warn).',
        items: { type: 'string' },
        'x-kubernetes-list-type': 'set',
      },
    }),
  },
);
