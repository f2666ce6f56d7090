// ConfigMap (core v1, namespaced): configuration for pods to consume, as text (data) and bytes
// (binaryData), with upstream 1.28's validation.
import { invalid, newPath, tooLong, type FieldError } from '@plat/apimachinery';
import type { JSONSchema, KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { booleanField } from '../common/schema.js';
import { allVerbs } from '../common/verbs.js';
import { MAX_DATA_BYTES, base64Bytes, configKeyErrors, immutableErrors, textBytes } from './config-data.js';

export interface ConfigMap extends KubeObject {
  immutable?: boolean;
  data?: Record<string, string>;
  /** Values base64-encoded, as a []byte in JSON. */
  binaryData?: Record<string, string>;
}

/** A map of keys to base64-encoded bytes. */
export const byteMap = (description: string): JSONSchema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string', format: 'byte' },
});

const textMap = (description: string): JSONSchema => ({ type: 'object', description, additionalProperties: { type: 'string' } });

export const configMapDefinition = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  resource: 'configmaps',
  singularName: 'configmap',
  shortNames: ['cm'],
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema('ConfigMap holds configuration data for pods to consume.', {
    immutable: booleanField(
      'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
    ),
    data: textMap(
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
    binaryData: byteMap(
      "BinaryData contains the binary data. Each key must consist of alphanumeric characters, '-', '_' or '.'. BinaryData can contain byte sequences that are not in the UTF-8 range. The keys stored in BinaryData must not overlap with the ones in the Data field, this is enforced during validation process.",
    ),
  }),
  strategy: {
    validate: (configMap) => validateConfigMap(configMap),
    validateUpdate: (configMap, old) => [
      ...immutableErrors(
        configMap,
        old,
        [
          { path: newPath('data'), get: (c) => c.data },
          { path: newPath('binaryData'), get: (c) => c.binaryData },
        ],
        newPath('immutable'),
      ),
      ...validateConfigMap(configMap),
    ],
  },
  tableColumns: [
    nameColumn<ConfigMap>(),
    {
      name: 'Data',
      type: 'string',
      description: 'Data contains the configuration data.',
      priority: 0,
      value: (configMap) => Object.keys(configMap.data ?? {}).length + Object.keys(configMap.binaryData ?? {}).length,
    },
    ageColumn<ConfigMap>(),
  ],
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.core.v1.ConfigMap', pointers: ['immutable'] },
} satisfies ResourceDefinition<ConfigMap>;

export function validateConfigMap(configMap: ConfigMap): FieldError[] {
  const errors = [...configKeyErrors(configMap.data, newPath('data'))];
  for (const key of Object.keys(configMap.data ?? {})) {
    if (configMap.binaryData && Object.hasOwn(configMap.binaryData, key)) {
      errors.push(invalid(newPath('data').key(key), key, 'duplicate of key present in binaryData'));
    }
  }
  errors.push(...configKeyErrors(configMap.binaryData, newPath('binaryData')));
  // The whole object is at fault: upstream reports it at the empty path, which prints as "[]".
  if (textBytes(configMap.data) + base64Bytes(configMap.binaryData) > MAX_DATA_BYTES) errors.push(tooLong(newPath(''), '', MAX_DATA_BYTES));
  return errors;
}
