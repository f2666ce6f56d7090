// Secret (core v1, namespaced): small amounts of sensitive data, typed (Opaque, TLS, registry
// credentials, ...) with each type's required keys; `stringData` is written into `data` on every
// write and never stored, as upstream's conversion does. Upstream 1.28's validation.
import { invalid, newPath, required, tooLong, type FieldError } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { booleanField, stringField } from '../common/schema.js';
import { allVerbs } from '../common/verbs.js';
import { MAX_DATA_BYTES, base64Bytes, configKeyErrors, immutableErrors } from './config-data.js';
import { byteMap } from './config-map.js';
import { keyPairProblem } from './tls-key-pair.js';

export interface Secret extends KubeObject {
  immutable?: boolean;
  /** Values base64-encoded, as a []byte in JSON. */
  data?: Record<string, string>;
  /** Write-only: merged into `data` (its values win) before the object is stored. */
  stringData?: Record<string, string>;
  type?: string;
}

/** The types upstream validates, and the keys they need. */
export const secretTypes = {
  opaque: 'Opaque',
  serviceAccountToken: 'kubernetes.io/service-account-token',
  dockercfg: 'kubernetes.io/dockercfg',
  dockerConfigJson: 'kubernetes.io/dockerconfigjson',
  basicAuth: 'kubernetes.io/basic-auth',
  sshAuth: 'kubernetes.io/ssh-auth',
  tls: 'kubernetes.io/tls',
  bootstrapToken: 'bootstrap.kubernetes.io/token',
} as const;

const SERVICE_ACCOUNT_NAME_KEY = 'kubernetes.io/service-account.name';

export const secretDefinition = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  resource: 'secrets',
  singularName: 'secret',
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema('Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.', {
    immutable: booleanField(
      'Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
    ),
    data: byteMap(
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    ),
    stringData: {
      type: 'object',
      description:
        'stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience. All keys and values are merged into the data field on write, overwriting any existing values. The stringData field is never output when reading from the API.',
      additionalProperties: { type: 'string' },
    },
    type: stringField(
      'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
    ),
  }),
  selectableFields: (secret) => ({ type: secret.type ?? '' }),
  strategy: {
    prepareForCreate: (secret) => mergeStringData(secret),
    prepareForUpdate: (secret) => mergeStringData(secret),
    default: (secret) => {
      if (!secret.type) secret.type = secretTypes.opaque;
    },
    validate: (secret) => validateSecret(secret),
    warningsOnCreate: (secret) => secretWarnings(secret),
    warningsOnUpdate: (secret) => secretWarnings(secret),
    validateUpdate: (secret, old) => [
      ...(secret.type !== old.type ? [invalid(newPath('type'), secret.type ?? '', 'field is immutable')] : []),
      // stringData is already in data here: only data is frozen.
      ...immutableErrors(secret, old, [{ path: newPath('data'), get: (s) => s.data }], newPath('immutable')),
      ...validateSecret(secret),
    ],
  },
  tableColumns: [
    nameColumn<Secret>(),
    {
      name: 'Type',
      type: 'string',
      description: 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
      priority: 0,
      value: (secret) => secret.type ?? '',
    },
    {
      name: 'Data',
      type: 'string',
      description: "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'.",
      priority: 0,
      value: (secret) => Object.keys(secret.data ?? {}).length,
    },
    ageColumn<Secret>(),
  ],
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.core.v1.Secret', pointers: ['immutable'] },
} satisfies ResourceDefinition<Secret>;

/** stringData's entries written into data as their UTF-8 bytes, overriding data's; stringData dropped. */
export function mergeStringData(secret: Secret): void {
  if (secret.stringData === undefined) return;
  const entries = Object.entries(secret.stringData);
  if (entries.length > 0) {
    const data: Record<string, string> = { ...secret.data };
    for (const [key, value] of entries) data[key] = Buffer.from(value, 'utf8').toString('base64');
    secret.data = data;
  }
  delete secret.stringData;
}

const has = (data: Record<string, string> | undefined, key: string): boolean => data !== undefined && Object.hasOwn(data, key);

export function validateSecret(secret: Secret): FieldError[] {
  const dataPath = newPath('data');
  const data = secret.data;
  const errors = configKeyErrors(data, dataPath);
  if (base64Bytes(data) > MAX_DATA_BYTES) errors.push(tooLong(dataPath, '', MAX_DATA_BYTES));
  switch (secret.type) {
    case secretTypes.serviceAccountToken:
      // The token and the account's uid may be added later by a controller: only the name is needed.
      if (!secret.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY]) {
        errors.push(required(newPath('metadata', 'annotations').key(SERVICE_ACCOUNT_NAME_KEY)));
      }
      break;
    case secretTypes.dockercfg:
      errors.push(...jsonObjectErrors(data, '.dockercfg'));
      break;
    case secretTypes.dockerConfigJson:
      errors.push(...jsonObjectErrors(data, '.dockerconfigjson'));
      break;
    case secretTypes.basicAuth:
      // Either may be empty, but one must be there.
      if (!has(data, 'username') && !has(data, 'password')) errors.push(required(dataPath.key('username')), required(dataPath.key('password')));
      break;
    case secretTypes.sshAuth:
      if (!data?.['ssh-privatekey']) errors.push(required(dataPath.key('ssh-privatekey')));
      break;
    case secretTypes.tls:
      if (!has(data, 'tls.crt')) errors.push(required(dataPath.key('tls.crt')));
      if (!has(data, 'tls.key')) errors.push(required(dataPath.key('tls.key')));
      break;
    default:
      // Opaque, bootstrap tokens and types of users' own: no keys required (as upstream).
      break;
  }
  return errors;
}

/** A TLS Secret whose key does not match its certificate is accepted, with a warning (as upstream). */
function secretWarnings(secret: Secret): string[] {
  if (secret.type !== secretTypes.tls) return [];
  const text = (key: string): string => Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8');
  const problem = keyPairProblem(text('tls.crt'), text('tls.key'));
  return problem ? [problem] : [];
}

/** The key must be there and hold a JSON object (null too, as Go's decoding into a map takes it). */
function jsonObjectErrors(data: Record<string, string> | undefined, key: string): FieldError[] {
  const path = newPath('data').key(key);
  if (!has(data, key)) return [required(path)];
  const problem = jsonObjectProblem(Buffer.from(data![key]!, 'base64').toString('utf8'));
  return problem ? [invalid(path, '<secret contents redacted>', problem)] : [];
}

/** Go's json.Unmarshal error for `text` into a map[string]interface{}, or undefined. */
export function jsonObjectProblem(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const first = text.trimStart()[0];
    if (first === undefined || /Unexpected end of JSON input/.test(String(error))) return 'unexpected end of JSON input';
    if (!/["{[\-0-9tfn]/.test(first)) return `invalid character '${first}' looking for beginning of value`;
    // Go names what it expected there; V8 only where it stopped.
    const found = /Unexpected token '?(.)'?/.exec(String(error))?.[1];
    return found ? `invalid character '${found}' in JSON input` : 'invalid JSON input';
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}
