// CustomResourceDefinition (apiextensions.{domain}/v1) as JSON: upstream 1.28's v1 types, field
// for field, with JSONSchemaProps, the OpenAPI v3 schema a version carries.
import type { KubeObject } from '@plat/apimachinery';

/** A JSON value (upstream's apiextensions JSON: `default`, `example`, `enum` members). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
}

export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

/** An OpenAPI v3 schema, as a CRD's versions give it (upstream's JSONSchemaProps). */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: JsonValue;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: JsonValue[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** A schema, or (JSONSchemaPropsOrArray) a list of them. */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  /** A schema, or (JSONSchemaPropsOrBool) whether any is allowed. */
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: ExternalDocumentation;
  example?: JsonValue;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 in JSON. */
  caBundle?: string;
}

export interface CustomResourceConversion {
  strategy: 'None' | 'Webhook' | string;
  webhook?: { clientConfig?: WebhookClientConfig; conversionReviewVersions: string[] };
}

export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: 'Namespaced' | 'Cluster' | string;
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinitionCondition {
  type: 'Established' | 'NamesAccepted' | 'NonStructuralSchema' | 'Terminating' | 'KubernetesAPIApprovalPolicyConformant' | string;
  status: 'True' | 'False' | 'Unknown' | string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}
