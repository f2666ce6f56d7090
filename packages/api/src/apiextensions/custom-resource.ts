// A CustomResourceDefinition's served versions as definitions of the one generic store: each an
// unstructured kind (pruned, defaulted and validated by its version's schema, stored in the storage
// version), with the status and scale subresources, printer columns and deprecation the version
// asks for. Served under the names the definition was given (status.acceptedNames), as upstream's
// custom resource handler serves it.
import { compareKubeVersions, type FieldError } from '@plat/apimachinery';
import { pruneUnknownFields, type Converter, type JSONSchema, type KubeObject, type ResourceDefinition, type SubresourceDefinition, type TableColumn } from '@plat/registry';
import { objectMetaSchema } from '../common/object-meta-schema.js';
import { nameColumn } from '../common/table.js';
import { coerceEmbeddedResources } from './embedded-object-meta.js';
import { customResourceScale } from './scale-subresource.js';
import { customResourceConverter } from './crd-conversion.js';
import { RuleValidator, ruleErrors } from './cel/validator.js';
import { allVerbs } from '../common/verbs.js';
import {
  applyDefaults,
  printerColumnValue,
  pruneNulls,
  structuralSchema,
  validateCustomResource,
  validateCustomResourceStatus,
  validateCustomResourceUpdate,
  validateScaleSpec,
  validateScaleStatus,
} from './schema/index.js';
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionVersion,
  CustomResourceSubresourceScale,
  JSONSchemaProps,
  JsonValue,
} from './types.js';

type CustomObject = KubeObject & { status?: unknown; [field: string]: unknown };

/** A version without a schema keeps whatever it is given (upstream requires one in v1; older data may lack it). */
const OPEN_SCHEMA: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/**
 * What decoding checks of a custom object: its type meta and ObjectMeta. The rest is the schema's,
 * checked by pruning and validation (a CRD's schema is OpenAPI's dialect, not the decoder's).
 */
const decodingSchema: JSONSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
    kind: { type: 'string', description: 'The REST resource this object represents, in CamelCase.' },
    metadata: objectMetaSchema,
  },
};

/** Upstream's column when a version names none: the object's age. */
const AGE_COLUMN: CustomResourceColumnDefinition = {
  name: 'Age',
  type: 'date',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  jsonPath: '.metadata.creationTimestamp',
};

function tableColumns(version: CustomResourceDefinitionVersion): TableColumn<CustomObject>[] {
  const columns = version.additionalPrinterColumns?.length ? version.additionalPrinterColumns : [AGE_COLUMN];
  return [
    nameColumn<CustomObject>(),
    ...columns.map(
      (column): TableColumn<CustomObject> => ({
        name: column.name,
        type: column.type as TableColumn<CustomObject>['type'],
        ...(column.format && { format: column.format }),
        description: column.description ?? '',
        priority: column.priority ?? 0,
        value: (object) => printerColumnValue(object, column),
      }),
    ),
  ];
}

/** Upstream's default warning: the version is deprecated, and the newest served one that is not, if any. */
export function defaultDeprecationWarning(version: string, spec: CustomResourceDefinitionSpec, kind: string): string {
  const message = `${spec.group}/${version} ${kind} is deprecated`;
  const newer = spec.versions
    .filter((v) => v.served && !v.deprecated && compareKubeVersions(v.name, version) < 0)
    .map((v) => v.name)
    .sort(compareKubeVersions);
  return newer.length ? `${message}; use ${spec.group}/${newer[0]} ${kind}` : message;
}

function statusSubresource(schema: JSONSchemaProps, scale: CustomResourceSubresourceScale | undefined, rules: RuleValidator | undefined): SubresourceDefinition<CustomObject> {
  return {
    // Only the status changes: everything else stays as it was (metadata's managed fields are the store's).
    merge(object, old) {
      const merged = old;
      if (object.status !== undefined) merged.status = object.status;
      else delete merged.status;
      return merged;
    },
    validateUpdate: (object, old) => {
      const errors = [...validateCustomResourceStatus(schema, object, old), ...(scale ? validateScaleStatus(object, scale) : [])];
      return [...errors, ...ruleErrors(rules, errors, object, old)];
    },
  };
}

/** The definition of one served version, given the definition's accepted names. */
function versionDefinition(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion, storageVersion: string, converter: Converter): ResourceDefinition<CustomObject> {
  const names = crd.status?.acceptedNames ?? crd.spec.names;
  const schema = version.schema?.openAPIV3Schema ?? OPEN_SCHEMA;
  const structural = structuralSchema(schema);
  // The root's metadata is ObjectMeta, already decoded and pruned as one (embedded resources'
  // metadata is the schema's to prune): pruning and defaults need not walk it again.
  const values: JSONSchema = {
    ...structural,
    properties: { ...(structural.properties as Record<string, JSONSchema>), metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  };
  // Upstream's order after pruning: nulls the schema does not allow go, then defaults.
  const defaults = (object: KubeObject): boolean => {
    const pruned = pruneNulls(values, object);
    const defaulted = applyDefaults(values, object);
    return pruned || defaulted;
  };
  const subresources = version.subresources;
  const scale = subresources?.scale;
  const hasStatus = subresources?.status !== undefined;
  const scaleErrors = (object: CustomObject): FieldError[] => (scale ? [...validateScaleSpec(object, scale), ...validateScaleStatus(object, scale)] : []);
  // The x-kubernetes-validations rules, compiled here once for as long as this version is served.
  const rules = RuleValidator.build(schema, true);
  return {
    group: crd.spec.group,
    version: version.name,
    kind: names.kind,
    ...(names.listKind && { listKind: names.listKind }),
    resource: names.plural,
    singularName: names.singular ?? '',
    ...(names.shortNames?.length && { shortNames: [...names.shortNames] }),
    ...(names.categories?.length && { categories: [...names.categories] }),
    namespaced: crd.spec.scope === 'Namespaced',
    verbs: allVerbs,
    schema: decodingSchema,
    unstructured: {
      storageVersion,
      converter,
      prune: (object) => pruneUnknownFields(values, object).sort(),
      coerce: (object) => coerceEmbeddedResources(schema, object as unknown as JsonValue),
      default: defaults,
      openAPIV3Schema: schema as JSONSchema,
      fieldsSchema: structural,
    },
    strategy: {
      tracksGeneration: true,
      default: (object) => void defaults(object),
      prepareForCreate(object) {
        if (hasStatus) delete object.status;
      },
      prepareForUpdate(object, old) {
        if (!hasStatus) return;
        if (old.status !== undefined) object.status = old.status;
        else delete object.status;
      },
      validate: (object) => {
        const errors = [...validateCustomResource(schema, object), ...scaleErrors(object)];
        return [...errors, ...ruleErrors(rules, errors, object, undefined)];
      },
      validateUpdate: (object, old) => {
        const errors = [...validateCustomResourceUpdate(schema, object, old), ...scaleErrors(object)];
        return [...errors, ...ruleErrors(rules, errors, object, old)];
      },
    },
    ...((hasStatus || scale) && {
      subresources: {
        ...(hasStatus && { status: statusSubresource(schema, scale, rules) }),
        ...(scale && { scale: customResourceScale(scale) }),
      },
    }),
    tableColumns: tableColumns(version),
    allowCreateOnUpdate: false,
    ...(version.deprecated && { deprecated: { warning: version.deprecationWarning ?? defaultDeprecationWarning(version.name, crd.spec, names.kind) } }),
  };
}

/** The served versions of a definition, each as a definition of the generic store. */
export function customResourceDefinitions(crd: CustomResourceDefinition): ResourceDefinition[] {
  const storage = crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name ?? '';
  // One converter for all of them, as upstream's one per definition.
  const converter = customResourceConverter(crd);
  return crd.spec.versions
    .filter((version) => version.served)
    .map((version) => versionDefinition(crd, version, storage, converter) as unknown as ResourceDefinition);
}
