// kube-apiserver's EncryptionConfiguration (apiserver.config.k8s.io/v1, the file of
// --encryption-provider-config): decoded leniently as upstream's decoder does, then validated with
// upstream's rules and words, reported together as Go's aggregate of field errors.
import { parse } from 'yaml';
import { GoFormatted, aggregateMessage, goStringSlice, invalid, newPath, required, type FieldError, type FieldPath } from '@plat/apimachinery';
import { AES_KEY_LENGTHS, SECRETBOX_KEY_LENGTHS } from '@plat/storage';

export interface EncryptionKey {
  name: string;
  /** The key, base64-encoded. */
  secret: string;
}

export interface KeysConfiguration {
  keys: EncryptionKey[];
}

export interface KMSConfiguration {
  apiVersion?: string;
  name?: string;
  endpoint?: string;
  cachesize?: number;
  timeout?: string;
}

export interface ProviderConfiguration {
  aesgcm?: KeysConfiguration;
  aescbc?: KeysConfiguration;
  secretbox?: KeysConfiguration;
  identity?: Record<string, never>;
  kms?: KMSConfiguration;
}

export interface ResourceConfiguration {
  resources: string[];
  providers: ProviderConfiguration[];
}

export interface EncryptionConfiguration {
  resources: ResourceConfiguration[];
}

/** A group and resource as written in a configuration: `secrets`, `*.apps`, `widgets.example.com`. */
export function parseGroupResource(name: string): { group: string; resource: string } {
  const dot = name.indexOf('.');
  return dot < 0 ? { group: '', resource: name } : { group: name.slice(dot + 1), resource: name.slice(0, dot) };
}

export class EncryptionConfigError extends Error {
  override readonly name = 'EncryptionConfigError';
}

/** The apiVersion and kind pairs a file may declare: upstream's, ours, and the old name kept for a docs bug. */
const KNOWN_TYPES = [
  ['apiserver.config.k8s.io/v1', 'EncryptionConfiguration'],
  ['apiserver.config.plat.io/v1', 'EncryptionConfiguration'],
  ['v1', 'EncryptionConfig'],
] as const;

/**
 * Decodes and validates a configuration file's text (YAML or JSON). Throws EncryptionConfigError
 * saying what is wrong.
 */
export function parseEncryptionConfiguration(text: string): EncryptionConfiguration {
  if (text.trim() === '') throw new EncryptionConfigError('the encryption provider configuration is empty');
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    // The parser's message goes on with the lines around the error, which may hold a key: only its
    // first line, which says what and where.
    const first = (error instanceof Error ? error.message : String(error)).split('\n', 1)[0]!.replace(/:$/, '');
    throw new EncryptionConfigError(`not YAML or JSON: ${first}`);
  }
  if (!isObject(document)) throw new EncryptionConfigError('the encryption provider configuration is not an object');
  const { apiVersion, kind } = document;
  if (typeof kind !== 'string' || kind === '') throw new EncryptionConfigError("Object 'Kind' is missing");
  if (typeof apiVersion !== 'string' || apiVersion === '') throw new EncryptionConfigError("Object 'apiVersion' is missing");
  if (!KNOWN_TYPES.some(([version, known]) => version === apiVersion && known === kind)) {
    throw new EncryptionConfigError(
      `no kind "${kind}" is registered for version "${apiVersion}": expected kind EncryptionConfiguration of apiserver.config.k8s.io/v1`,
    );
  }
  const config = decodeConfiguration(document);
  const errors = validateEncryptionConfiguration(config);
  if (errors.length) throw new EncryptionConfigError(aggregateMessage(errors));
  return config;
}

function decodeConfiguration(document: Record<string, unknown>): EncryptionConfiguration {
  const resources = listOf(document.resources, 'resources').map((entry, i) => {
    const path = `resources[${i}]`;
    if (!isObject(entry)) throw typeError(path, 'an object');
    return {
      resources: listOf(entry.resources, `${path}.resources`).map((name, j) => {
        if (typeof name !== 'string') throw typeError(`${path}.resources[${j}]`, 'a string');
        return name;
      }),
      providers: listOf(entry.providers, `${path}.providers`).map((provider, j) => decodeProvider(provider, `${path}.providers[${j}]`)),
    };
  });
  return { resources };
}

function decodeProvider(provider: unknown, path: string): ProviderConfiguration {
  if (!isObject(provider)) throw typeError(path, 'an object');
  const decoded: ProviderConfiguration = {};
  for (const name of ['aesgcm', 'aescbc', 'secretbox'] as const) {
    const value = provider[name];
    if (value === undefined || value === null) continue;
    if (!isObject(value)) throw typeError(`${path}.${name}`, 'an object');
    decoded[name] = {
      keys: listOf(value.keys, `${path}.${name}.keys`).map((key, k) => {
        const keyPath = `${path}.${name}.keys[${k}]`;
        if (!isObject(key)) throw typeError(keyPath, 'an object');
        return { name: stringOf(key.name, `${keyPath}.name`), secret: stringOf(key.secret, `${keyPath}.secret`) };
      }),
    };
  }
  if (provider.identity !== undefined && provider.identity !== null) {
    if (!isObject(provider.identity)) throw typeError(`${path}.identity`, 'an object');
    decoded.identity = {};
  }
  if (provider.kms !== undefined && provider.kms !== null) {
    if (!isObject(provider.kms)) throw typeError(`${path}.kms`, 'an object');
    const kms = provider.kms;
    decoded.kms = {
      ...(typeof kms.apiVersion === 'string' && { apiVersion: kms.apiVersion }),
      ...(typeof kms.name === 'string' && { name: kms.name }),
      ...(typeof kms.endpoint === 'string' && { endpoint: kms.endpoint }),
    };
  }
  return decoded;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function listOf(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw typeError(path, 'a list');
  return value;
}

function stringOf(value: unknown, path: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw typeError(path, 'a string');
  return value;
}

const typeError = (path: string, expected: string): EncryptionConfigError =>
  new EncryptionConfigError(`${path}: must be ${expected}`);

// Upstream's words (apiserver/pkg/apis/config/validation).
const MORE_THAN_ONE = 'more than one provider specified in a single element, should split into different list elements';
const NO_PROVIDER = 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity';
const EVENTS_GROUP = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file";
const EXTENSIONS_GROUP = "'extensions' group has been removed and cannot be used for encryption";
const STAR_RESOURCE = "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources";
const OVERLAP = "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked";
const NON_REST = 'resources which do not have REST API/s cannot be encrypted';
const CAPITALS = 'resource name should not contain capital letters';
const ACROSS_GROUPS = 'encrypting the same resource across groups is not supported';
const DUPLICATE = 'the same resource cannot be specified multiple times';
const atLeastOne = (what: string): string => `at least one ${what} is required`;

export function validateEncryptionConfiguration(config: EncryptionConfiguration): FieldError[] {
  const root = newPath('resources');
  if (config.resources.length === 0) return [required(root, atLeastOne(String(root)))];
  const errors: FieldError[] = [];
  config.resources.forEach((entry, i) => {
    const resourcesPath = root.index(i).child('resources');
    const providersPath = root.index(i).child('providers');
    if (entry.resources.length === 0) errors.push(required(resourcesPath, atLeastOne(String(resourcesPath))));
    errors.push(...validateOverlap(entry.resources, resourcesPath), ...validateResourceNames(entry.resources, resourcesPath));
    if (entry.providers.length === 0) errors.push(required(providersPath, atLeastOne(String(providersPath))));
    entry.providers.forEach((provider, j) => {
      const path = providersPath.index(j);
      const kinds = (['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'] as const).filter((name) => provider[name] !== undefined);
      if (kinds.length === 0) errors.push(invalid(path, redacted(provider), NO_PROVIDER));
      else if (kinds.length > 1) errors.push(invalid(path, redacted(provider), MORE_THAN_ONE));
      if (provider.kms) errors.push(...validateKms(provider.kms, path.child('kms')));
      else if (provider.aesgcm) errors.push(...validateKeys(provider.aesgcm.keys, path.child('aesgcm', 'keys'), AES_KEY_LENGTHS));
      else if (provider.aescbc) errors.push(...validateKeys(provider.aescbc.keys, path.child('aescbc', 'keys'), AES_KEY_LENGTHS));
      else if (provider.secretbox) errors.push(...validateKeys(provider.secretbox.keys, path.child('secretbox', 'keys'), SECRETBOX_KEY_LENGTHS));
    });
  });
  return errors;
}

/**
 * The provider as an error may show it: every key's secret replaced, as in the other refusals (Go
 * prints the provider's fields as pointers, so upstream's message never holds a key either).
 */
function redacted(provider: ProviderConfiguration): ProviderConfiguration {
  const keys = (config: KeysConfiguration | undefined): KeysConfiguration | undefined =>
    config && { ...config, keys: config.keys.map((key) => ({ ...key, secret: 'REDACTED' })) };
  return {
    ...provider,
    ...(provider.aesgcm && { aesgcm: keys(provider.aesgcm) }),
    ...(provider.aescbc && { aescbc: keys(provider.aescbc) }),
    ...(provider.secretbox && { secretbox: keys(provider.secretbox) }),
  };
}

function validateOverlap(resources: readonly string[], path: FieldPath): FieldError[] {
  if (resources.length < 2) return [];
  const parsed = resources.map(parseGroupResource);
  let overlap = false;
  let duplicate = false;
  for (let i = 0; i < parsed.length; i++) {
    for (let j = 0; j < parsed.length; j++) {
      if (i === j) continue;
      const a = parsed[i]!;
      const b = parsed[j]!;
      if (a.group === b.group && a.resource === b.resource) duplicate = true;
      else if (a.group === '*' && a.resource === '*') overlap = true;
      else if (a.group === b.group && (a.resource === '*' || b.resource === '*')) overlap = true;
    }
  }
  const value = new GoFormatted(goStringSlice(resources));
  return [...(duplicate ? [invalid(path, value, DUPLICATE)] : []), ...(overlap ? [invalid(path, value, OVERLAP)] : [])];
}

function validateResourceNames(resources: readonly string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  resources.forEach((name, j) => {
    const at = path.index(j);
    const { group, resource } = parseGroupResource(name);
    if (name.toLowerCase() !== name) errors.push(invalid(at, name, CAPITALS));
    else if (name === '*') errors.push(invalid(at, name, STAR_RESOURCE));
    else if (['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations'].includes(name)) errors.push(invalid(at, name, NON_REST));
    else if (group === 'events.k8s.io' || group === 'events.plat.io') errors.push(invalid(at, name, EVENTS_GROUP));
    else if (group === 'extensions') errors.push(invalid(at, name, EXTENSIONS_GROUP));
    else if (group === '*' && resource !== '*') errors.push(invalid(at, name, ACROSS_GROUPS));
  });
  return errors;
}

function validateKeys(keys: readonly EncryptionKey[], path: FieldPath, lengths: readonly number[]): FieldError[] {
  if (keys.length === 0) return [required(path, atLeastOne('keys'))];
  const errors: FieldError[] = [];
  keys.forEach((key, i) => {
    const at = path.index(i);
    if (key.name === '') errors.push(required(at.child('name'), 'name is a mandatory field for a key'));
    if (key.secret === '') {
      errors.push(required(at.child('secret'), 'secret is a mandatory field for a key'));
      return;
    }
    const secret = decodeStdBase64(key.secret);
    if (!secret) {
      errors.push(invalid(at.child('secret'), 'REDACTED', 'secrets must be base64 encoded'));
      return;
    }
    if (!lengths.includes(secret.length)) {
      errors.push(invalid(at.child('secret'), 'REDACTED', `secret is not of the expected length, got ${secret.length}, expected one of [${lengths.join(' ')}]`));
    }
  });
  return errors;
}

function validateKms(kms: KMSConfiguration, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!kms.name) errors.push(required(path.child('name'), 'name is a mandatory field for a provider'));
  if (!kms.endpoint) errors.push(invalid(path.child('endpoint'), '', 'endpoint is a mandatory field for a kms'));
  else if (!kms.endpoint.startsWith('unix://')) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(kms.endpoint)?.[1] ?? '';
    errors.push(invalid(path.child('endpoint'), kms.endpoint, `unsupported scheme "${scheme}" for KMS provider, only unix is supported`));
  }
  return errors;
}

/** Standard base64 with padding, strictly (Go's base64.StdEncoding), or undefined. */
export function decodeStdBase64(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  // Node ignores stray bits in the last character; Go does not.
  return bytes.toString('base64') === text ? bytes : undefined;
}
