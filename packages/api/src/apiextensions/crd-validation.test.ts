import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionName,
  validateCustomResourceDefinitionStatus,
  validateCustomResourceDefinitionUpdate,
} from './crd-validation.js';
import type { CustomResourceDefinition, JSONSchemaProps } from './types.js';

const dns1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const dns1123Subdomain =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const webhookRefused = 'spec.conversion.strategy: Forbidden: webhook conversion is not supported by this server; use None';

const schema = (): JSONSchemaProps => ({ type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } });

/** A valid CRD as the strategy hands it to validation: defaulted, status prepared. */
const validCRD = (): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema() } }],
    conversion: { strategy: 'None' },
  },
  status: { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] },
});

/** Two versions, v1 stored, so that per-version fields stay per version. */
const twoVersions = (crd: CustomResourceDefinition): void => {
  crd.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: schema() } });
};

const messages = (crd: CustomResourceDefinition, domain = 'plat.io'): string[] => validateCustomResourceDefinition(crd, { domain }).map(String);

interface Case {
  name: string;
  mutate: (crd: CustomResourceDefinition) => void;
  domain?: string;
  want: string[];
}

const createCases: Case[] = [
  { name: 'a valid CRD', mutate: () => {}, want: [] },
  {
    name: 'a valid cluster-scoped CRD with two versions, subresources and columns',
    mutate: (crd) => {
      crd.spec.scope = 'Cluster';
      twoVersions(crd);
      crd.spec.names.shortNames = ['wd'];
      crd.spec.names.categories = ['all'];
      for (const v of crd.spec.versions) {
        v.subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } };
        v.additionalPrinterColumns = [{ name: 'Size', type: 'integer', format: 'int32', jsonPath: '.spec.size' }];
      }
    },
    want: [],
  },
  {
    name: 'required fields missing (upstream "missing values")',
    mutate: (crd) => {
      crd.spec = { group: '', scope: '', names: { plural: '', kind: '' }, versions: [] };
      crd.status = {};
    },
    want: [
      'spec.group: Required value',
      'spec.scope: Required value',
      'spec.versions: Invalid value: []: must have exactly one version marked as storage version',
      'spec.names.plural: Required value',
      'spec.names.singular: Required value',
      'spec.names.kind: Required value',
      'spec.names.listKind: Required value',
      'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
    ],
  },
  {
    name: 'bad names (upstream "bad names 01")',
    mutate: (crd) => {
      crd.spec.group = 'group';
      crd.spec.scope = 'foo';
      crd.spec.names = { plural: 'pl()*ural', singular: 'value()*a', kind: 'value()*a', listKind: 'value()*a' };
      crd.status!.acceptedNames = { plural: 'pl()*ural', singular: 'value()*a', kind: 'value()*a', listKind: 'value()*a' };
      crd.spec.versions[0]!.name = 've()*rsion';
      crd.status!.storedVersions = ['ve()*rsion'];
    },
    want: [
      'spec.group: Invalid value: "group": should be a domain with at least one dot',
      'spec.scope: Unsupported value: "foo": supported values: "Cluster", "Namespaced"',
      `spec.versions[0].name: Invalid value: "ve()*rsion": ${dns1035}`,
      `spec.version: Invalid value: "ve()*rsion": ${dns1035}`,
      `spec.names.plural: Invalid value: "pl()*ural": ${dns1035}`,
      `spec.names.singular: Invalid value: "value()*a": ${dns1035}`,
      `spec.names.kind: Invalid value: "value()*a": may have mixed case, but should otherwise match: ${dns1035}`,
      `spec.names.listKind: Invalid value: "value()*a": may have mixed case, but should otherwise match: ${dns1035}`,
      'spec.names.listKind: Invalid value: "value()*a": kind and listKind may not be the same',
      `status.acceptedNames.plural: Invalid value: "pl()*ural": ${dns1035}`,
      `status.acceptedNames.singular: Invalid value: "value()*a": ${dns1035}`,
      `status.acceptedNames.kind: Invalid value: "value()*a": may have mixed case, but should otherwise match: ${dns1035}`,
      `status.acceptedNames.listKind: Invalid value: "value()*a": may have mixed case, but should otherwise match: ${dns1035}`,
      'status.acceptedNames.listKind: Invalid value: "value()*a": kind and listKind may not be the same',
    ],
  },
  {
    name: 'a group that is not a DNS subdomain',
    mutate: (crd) => {
      crd.spec.group = 'Example.com';
    },
    want: [`spec.group: Invalid value: "Example.com": ${dns1123Subdomain}`],
  },
  {
    name: 'mixed-case kinds are fine; short names and categories are DNS-1035 labels',
    mutate: (crd) => {
      crd.spec.names.kind = 'WidgetThing';
      crd.spec.names.listKind = 'WidgetThingList';
      crd.spec.names.shortNames = ['ok', 'Not_OK'];
      crd.spec.names.categories = ['all', '9lives'];
    },
    want: [`spec.names.shortNames[1]: Invalid value: "Not_OK": ${dns1035}`, `spec.names.categories[1]: Invalid value: "9lives": ${dns1035}`],
  },
  {
    name: 'no storage version (upstream no_storage_version)',
    mutate: (crd) => {
      twoVersions(crd);
      crd.spec.versions[0]!.storage = false;
    },
    want: [
      'spec.versions: Invalid value: [{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}},{"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]: must have exactly one version marked as storage version',
    ],
  },
  {
    name: 'two storage versions (upstream multiple_storage_version)',
    mutate: (crd) => {
      crd.spec.versions.push({ name: 'v2', served: true, storage: true });
      crd.spec.versions[0]!.schema = undefined;
    },
    want: [
      'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
      'spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required',
      'spec.versions: Invalid value: [{"name":"v1","served":true,"storage":true},{"name":"v2","served":true,"storage":true}]: must have exactly one version marked as storage version',
      'status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2',
    ],
  },
  {
    name: 'duplicate version names',
    mutate: (crd) => {
      crd.spec.versions.push({ name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } });
    },
    want: [
      'spec.versions: Invalid value: [{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}},{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}]: must contain unique version names',
    ],
  },
  {
    name: 'schemas are required in every version (upstream "schema is required")',
    mutate: (crd) => {
      twoVersions(crd);
      delete crd.spec.versions[0]!.schema;
      crd.spec.versions[1]!.schema = {};
    },
    want: [
      'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
      'spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required',
    ],
  },
  {
    name: 'preserveUnknownFields true is refused',
    mutate: (crd) => {
      crd.spec.preserveUnknownFields = true;
    },
    want: ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'],
  },
  {
    name: 'preserveUnknownFields true with defaults and a webhook',
    mutate: (crd) => {
      twoVersions(crd);
      crd.spec.preserveUnknownFields = true;
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.properties!.size!.default = 1;
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://example.com/convert' } } };
    },
    want: [
      'spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema',
      'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true',
      webhookRefused,
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ],
  },
  // Conversion.
  {
    name: 'an unknown conversion strategy (upstream invalid_conversion_strategy)',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'non_existing_conversion' };
    },
    want: ['spec.conversion.strategy: Unsupported value: "non_existing_conversion": supported values: "None", "Webhook"'],
  },
  {
    name: 'a webhook with a service and the right fields is still refused, after its fields are checked',
    mutate: (crd) => {
      twoVersions(crd);
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1', 'v1beta1'], clientConfig: { service: { namespace: 'ns', name: 'n', port: 443 } } } };
    },
    want: [webhookRefused],
  },
  {
    name: 'webhook without a client config (upstream missing_webhookconfig)',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } };
    },
    want: ['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook', webhookRefused],
  },
  {
    name: 'webhook without a webhook at all',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook' };
    },
    want: [
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Required value',
      webhookRefused,
    ],
  },
  {
    name: 'webhook port 0 and 65536 (upstream invalid port)',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'ns', name: 'n', port: 65536 } } } };
    },
    want: ['spec.conversion.webhookClientConfig.service.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive', webhookRefused],
  },
  {
    name: 'webhook with both a URL and a service',
    mutate: (crd) => {
      crd.spec.conversion = {
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://example.com/webhook', service: { namespace: 'ns', name: 'n' } } },
      };
    },
    want: ['spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required', webhookRefused],
  },
  {
    name: 'webhook with a blank URL (upstream blank URL)',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: '' } } };
    },
    want: [
      `spec.conversion.webhookClientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'spec.conversion.webhookClientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
      webhookRefused,
    ],
  },
  {
    name: 'webhook URL with user, query and fragment',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'http://me@example.com/convert?x=1#top' } } };
    },
    want: [
      `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'spec.conversion.webhookClientConfig.url: Invalid value: "me": user information is not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "top": fragments are not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
      webhookRefused,
    ],
  },
  {
    name: 'webhook URL Go cannot parse',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: ':foo' } } };
    },
    want: ['spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse ":foo": missing protocol scheme; desired format: https://host[/path]', webhookRefused],
  },
  {
    name: 'webhook service without name and namespace, with a bad path',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: '', name: '', port: 443, path: 'foo//Bar' } } } };
    },
    want: [
      'spec.conversion.webhookClientConfig.service.name: Required value: service name is required',
      'spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required',
      `spec.conversion.webhookClientConfig.service.path: Invalid value: "foo//Bar": must start with a '/'`,
      'spec.conversion.webhookClientConfig.service.path: Invalid value: "foo//Bar": segment[1] may not be empty',
      `spec.conversion.webhookClientConfig.service.path: Invalid value: "foo//Bar": segment[2]: ${dns1123Subdomain}`,
      webhookRefused,
    ],
  },
  {
    name: 'conversion review versions: none recognized, a bad one, a duplicate (upstream)',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['invalid-version', '1.0', 'invalid-version'], clientConfig: { url: 'https://example.com/x' } } };
    },
    want: [
      `spec.conversion.conversionReviewVersions[1]: Invalid value: "1.0": ${dns1035}`,
      'spec.conversion.conversionReviewVersions[2]: Invalid value: "invalid-version": duplicate version',
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"invalid-version", "1.0", "invalid-version"}: must include at least one of v1, v1beta1',
      webhookRefused,
    ],
  },
  {
    name: 'None with webhook fields set (upstream webhookconfig_should_not_be_set and ConversionReviewVersions_should_not_be_set)',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'None', webhook: { conversionReviewVersions: ['v1beta1'], clientConfig: { url: 'https://example.com/webhook' } } };
    },
    want: [
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ],
  },
  // Stored versions.
  {
    name: 'the storage version missing from storedVersions (upstream)',
    mutate: (crd) => {
      twoVersions(crd);
      crd.spec.versions[0]!.storage = false;
      crd.spec.versions[1]!.storage = true;
    },
    want: ['status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2'],
  },
  {
    name: 'empty storedVersions (upstream empty_stored_version)',
    mutate: (crd) => {
      crd.status!.storedVersions = [];
    },
    want: ['status.storedVersions: Invalid value: []string{}: must have at least one stored version'],
  },
  {
    name: 'a stored version no longer in spec.versions',
    mutate: (crd) => {
      crd.status!.storedVersions = ['v0', 'v1'];
    },
    want: ['status.storedVersions[0]: Invalid value: "v0": must appear in spec.versions'],
  },
  // Versions' own fields.
  {
    name: 'a deprecation warning on a version that is not deprecated',
    mutate: (crd) => {
      crd.spec.versions[0]!.deprecationWarning = 'gone soon';
    },
    want: ['spec.versions[0].deprecationWarning: Invalid value: "gone soon": can only be set for deprecated versions'],
  },
  {
    name: 'an empty deprecation warning',
    mutate: (crd) => {
      crd.spec.versions[0]!.deprecated = true;
      crd.spec.versions[0]!.deprecationWarning = '';
    },
    want: ['spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string'],
  },
  {
    name: 'a deprecation warning of 257 bytes with a control character',
    mutate: (crd) => {
      crd.spec.versions[0]!.deprecated = true;
      crd.spec.versions[0]!.deprecationWarning = `é\t${'x'.repeat(254)}`;
    },
    want: [
      `spec.versions[0].deprecationWarning: Invalid value: "é\\t${'x'.repeat(254)}": must be <= 256 characters long`,
      `spec.versions[0].deprecationWarning: Invalid value: "é\\t${'x'.repeat(254)}": must only contain printable UTF-8 characters; non-printable character found at index 2`,
    ],
  },
  {
    name: 'a deprecation warning of 256 bytes, printable',
    mutate: (crd) => {
      crd.spec.versions[0]!.deprecated = true;
      crd.spec.versions[0]!.deprecationWarning = `v1 is deprecated: ${'é'.repeat(119)}`;
    },
    want: [],
  },
  {
    name: 'scale subresource paths (upstream labelSelectorPath outside of .spec and .status)',
    mutate: (crd) => {
      crd.spec.versions[0]!.subresources = { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '', labelSelectorPath: '.metadata.labels' } };
    },
    want: [
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Required value',
      'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
    ],
  },
  {
    name: 'scale paths that are not simple JSON paths, per version',
    mutate: (crd) => {
      twoVersions(crd);
      crd.spec.versions[1]!.subresources = { scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: 'status' } };
    },
    want: [
      'spec.versions[1].subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
      'spec.versions[1].subresources.scale.labelSelectorPath: Invalid value: "status": must be a simple json path starting with .',
    ],
  },
  {
    name: 'printer columns: name, type, format and JSON path',
    mutate: (crd) => {
      crd.spec.versions[0]!.additionalPrinterColumns = [
        { name: '', type: 'bogus', format: 'uuid', jsonPath: 'spec.size' },
        { name: 'Age', type: '', jsonPath: '' },
        { name: 'When', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ];
    },
    want: [
      'spec.additionalPrinterColumns[0].name: Required value',
      'spec.additionalPrinterColumns[0].type: Invalid value: "bogus": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
      'spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[1].JSONPath: Required value',
    ],
  },
  {
    name: 'columns that differ between versions stay per version',
    mutate: (crd) => {
      twoVersions(crd);
      crd.spec.versions[1]!.additionalPrinterColumns = [{ name: 'Size', type: 'int', jsonPath: '.spec.size' }];
    },
    want: ['spec.versions[1].additionalPrinterColumns[0].type: Invalid value: "int": must be one of boolean,date,integer,number,string'],
  },
  // API approval.
  {
    name: 'a protected group without the approval annotation (k8s.io)',
    domain: 'k8s.io',
    mutate: (crd) => {
      crd.spec.group = 'widgets.k8s.io';
    },
    want: [
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ],
  },
  {
    name: 'kubernetes.io itself is protected (k8s.io)',
    domain: 'k8s.io',
    mutate: (crd) => {
      crd.spec.group = 'kubernetes.io';
      crd.metadata.annotations = { 'api-approved.kubernetes.io': 'maybe' };
    },
    want: [
      'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "maybe": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ],
  },
  {
    name: 'an approval URL or an "unapproved" reason will do (k8s.io)',
    domain: 'k8s.io',
    mutate: (crd) => {
      crd.spec.group = 'x.k8s.io';
      crd.metadata.annotations = { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/78458' };
    },
    want: [],
  },
  {
    name: 'unapproved, experimental (k8s.io)',
    domain: 'k8s.io',
    mutate: (crd) => {
      crd.spec.group = 'x.kubernetes.io';
      crd.metadata.annotations = { 'api-approved.kubernetes.io': 'unapproved, experimental-only' };
    },
    want: [],
  },
  {
    name: 'under plat.io, plat.io groups are the protected ones and the annotation is api-approved.plat.io',
    mutate: (crd) => {
      crd.spec.group = 'widgets.plat.io';
      crd.metadata.annotations = { 'api-approved.kubernetes.io': 'https://example.com/approval' };
    },
    want: [
      'metadata.annotations[api-approved.plat.io]: Required value: protected groups must have approval annotation "api-approved.plat.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ],
  },
  {
    name: 'under plat.io, k8s.io groups are ordinary',
    mutate: (crd) => {
      crd.spec.group = 'widgets.k8s.io';
    },
    want: [],
  },
  {
    name: 'an approval that is a path, not a URL',
    mutate: (crd) => {
      crd.spec.group = 'plat.io';
      crd.metadata.annotations = { 'api-approved.plat.io': '/pull/1' };
    },
    want: [
      'metadata.annotations[api-approved.plat.io]: Invalid value: "/pull/1": protected groups must have approval annotation "api-approved.plat.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ],
  },
];

for (const c of createCases) {
  test(`crd validation: ${c.name}`, () => {
    const crd = validCRD();
    c.mutate(crd);
    assert.deepEqual(messages(crd, c.domain), c.want);
  });
}

test('crd validation: reasons of the errors are upstream causes', () => {
  const crd = validCRD();
  crd.spec.scope = '';
  crd.spec.conversion = { strategy: 'Webhook' };
  const types = validateCustomResourceDefinition(crd, { domain: 'plat.io' }).map((e) => `${e.type} ${e.field}`);
  assert.deepEqual(types, [
    'FieldValueRequired spec.scope',
    'FieldValueRequired spec.conversion.webhookClientConfig',
    'FieldValueRequired spec.conversion.conversionReviewVersions',
    'FieldValueForbidden spec.conversion.strategy',
  ]);
});

test('crd name: plural.group, a DNS subdomain', () => {
  const crd = validCRD();
  assert.deepEqual(validateCustomResourceDefinitionName('widgets.example.com', false, crd), []);
  assert.deepEqual(validateCustomResourceDefinitionName('widget.example.com', false, crd), ['must be spec.names.plural+"."+spec.group']);
  assert.deepEqual(validateCustomResourceDefinitionName('Widgets.example.com', false, crd), [dns1123Subdomain, 'must be spec.names.plural+"."+spec.group']);
  // A generateName prefix can never be the whole name.
  assert.deepEqual(validateCustomResourceDefinitionName('widgets-', true, crd), ['must be spec.names.plural+"."+spec.group']);
});

test('crd status: accepted names are checked alone', () => {
  const crd = validCRD();
  crd.spec.scope = 'bogus';
  crd.status = { acceptedNames: { plural: 'Widgets', kind: 'Widget', listKind: 'Widget' } };
  assert.deepEqual(validateCustomResourceDefinitionStatus(crd).map(String), [
    `status.acceptedNames.plural: Invalid value: "Widgets": ${dns1035}`,
    'status.acceptedNames.listKind: Invalid value: "Widget": kind and listKind may not be the same',
  ]);
});

// Updates.
const established = (crd: CustomResourceDefinition): CustomResourceDefinition => {
  crd.status!.conditions = [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }];
  return crd;
};

interface UpdateCase {
  name: string;
  old: (crd: CustomResourceDefinition) => void;
  mutate: (crd: CustomResourceDefinition) => void;
  domain?: string;
  want: string[];
}

const nonStructural = (crd: CustomResourceDefinition): void => {
  crd.spec.versions[0]!.schema = { openAPIV3Schema: { type: 'object', properties: { foo: {} } } };
};

const updateCases: UpdateCase[] = [
  { name: 'unchanged', old: () => {}, mutate: () => {}, want: [] },
  { name: 'unchanged, established', old: established, mutate: established, want: [] },
  {
    name: 'group and plural never change (upstream changes)',
    old: () => {},
    mutate: (crd) => {
      crd.spec.group = 'example.org';
      crd.spec.names.plural = 'gadgets';
      crd.spec.names.kind = 'Gadget';
      crd.spec.scope = 'Cluster';
    },
    want: ['spec.group: Invalid value: "example.org": field is immutable', 'spec.names.plural: Invalid value: "gadgets": field is immutable'],
  },
  {
    name: 'once established, scope and kind do not change either (upstream changes-established)',
    old: established,
    mutate: (crd) => {
      established(crd);
      crd.spec.group = 'example.org';
      crd.spec.names.plural = 'gadgets';
      crd.spec.names.kind = 'Gadget';
      crd.spec.scope = 'Cluster';
    },
    want: [
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'spec.names.kind: Invalid value: "Gadget": field is immutable',
      'spec.group: Invalid value: "example.org": field is immutable',
      'spec.names.plural: Invalid value: "gadgets": field is immutable',
    ],
  },
  {
    name: 'a version removed while still stored (upstream version-deleted)',
    old: (crd) => {
      twoVersions(crd);
      crd.status!.storedVersions = ['v1', 'v2'];
    },
    mutate: (crd) => {
      crd.status!.storedVersions = ['v1', 'v2'];
    },
    want: ['status.storedVersions[1]: Invalid value: "v2": must appear in spec.versions'],
  },
  {
    name: 'structural to non-structural is refused',
    old: () => {},
    mutate: nonStructural,
    want: ['spec.validation.openAPIV3Schema.properties[foo].type: Required value: must not be empty for specified object fields'],
  },
  {
    name: 'pruning needs a structural schema, whatever the old object had',
    old: nonStructural,
    mutate: (crd) => {
      nonStructural(crd);
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.bar = {};
    },
    want: [
      'spec.validation.openAPIV3Schema.properties[bar].type: Required value: must not be empty for specified object fields',
      'spec.validation.openAPIV3Schema.properties[foo].type: Required value: must not be empty for specified object fields',
    ],
  },
  {
    name: 'a non-structural schema may stay so where unknown fields were always kept (upstream ratcheting)',
    old: (crd) => {
      nonStructural(crd);
      crd.spec.preserveUnknownFields = true;
    },
    mutate: (crd) => {
      nonStructural(crd);
      crd.spec.preserveUnknownFields = true;
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.bar = {};
    },
    want: [],
  },
  {
    name: 'invalid types may stay where the old object had them',
    old: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.foo = { type: 'bogus' };
    },
    mutate: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.foo = { type: 'bogus' };
    },
    want: [],
  },
  {
    name: 'invalid types are refused when the old object had none (upstream)',
    old: () => {},
    mutate: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.foo = { type: 'bogus' };
    },
    want: ['spec.validation.openAPIV3Schema.properties[foo].type: Unsupported value: "bogus": supported values: "array", "boolean", "integer", "number", "object", "string"'],
  },
  {
    name: 'schemas stay optional where the old object lacked one, but a served version needs one to prune by',
    old: (crd) => {
      twoVersions(crd);
      delete crd.spec.versions[1]!.schema;
    },
    mutate: (crd) => {
      twoVersions(crd);
      delete crd.spec.versions[0]!.schema;
      delete crd.spec.versions[1]!.schema;
      crd.spec.versions[1]!.served = false;
    },
    want: ['spec.versions[0].schema.openAPIV3Schema: Required value: because otherwise all fields are pruned'],
  },
  {
    name: 'schemas become required once every version had one (upstream)',
    old: twoVersions,
    mutate: (crd) => {
      twoVersions(crd);
      delete crd.spec.versions[0]!.schema;
    },
    want: ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
  },
  {
    name: 'non-atomic set items may stay where they were (upstream)',
    old: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.bar = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } };
    },
    mutate: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.bar = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { a: { type: 'string' } } } };
    },
    want: [],
  },
  {
    name: 'non-atomic set items are refused when new (upstream)',
    old: () => {},
    mutate: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.bar = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } };
    },
    want: ['spec.validation.openAPIV3Schema.properties[bar].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set'],
  },
  {
    name: 'a map list key without a default may stay where it was (upstream)',
    old: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.bar = mapList(false);
    },
    mutate: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.bar = mapList(true);
    },
    want: [],
  },
  {
    name: 'a map list key without a default is refused when new (upstream)',
    old: () => {},
    mutate: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.bar = mapList(false);
    },
    want: [
      'spec.validation.openAPIV3Schema.properties[bar].items.properties[key].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
    ],
  },
  {
    name: 'unpruned defaults may stay where they were',
    old: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.default = { size: 1, unknown: true };
    },
    mutate: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.default = { size: 2, unknown: true };
    },
    want: [],
  },
  {
    name: 'unpruned defaults are refused when new',
    old: () => {},
    mutate: (crd) => {
      crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.default = { size: 2, unknown: true };
    },
    want: ['spec.validation.openAPIV3Schema.properties[spec].default: Invalid value: map[string]interface {}{"size":2, "unknown":true}: must not have unknown fields'],
  },
  {
    name: 'unrecognized conversion review versions may stay where they were (upstream)',
    old: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v2'], clientConfig: { url: 'https://example.com/c' } } };
    },
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v3'], clientConfig: { url: 'https://example.com/c' } } };
    },
    want: [webhookRefused],
  },
  {
    name: 'unrecognized conversion review versions are refused where the old ones were fine (upstream)',
    old: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://example.com/c' } } };
    },
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v3'], clientConfig: { url: 'https://example.com/c' } } };
    },
    want: ['spec.conversion.conversionReviewVersions: Invalid value: []string{"v3"}: must include at least one of v1, v1beta1', webhookRefused],
  },
  {
    name: 'preserveUnknownFields may stay true where it was (upstream keep)',
    old: (crd) => {
      crd.spec.preserveUnknownFields = true;
    },
    mutate: (crd) => {
      crd.spec.preserveUnknownFields = true;
    },
    want: [],
  },
  {
    name: 'preserveUnknownFields may not be switched on (upstream)',
    old: () => {},
    mutate: (crd) => {
      crd.spec.preserveUnknownFields = true;
    },
    want: ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'],
  },
  {
    name: 'an approval state that does not change is never refused',
    domain: 'k8s.io',
    old: (crd) => {
      crd.spec.group = 'x.k8s.io';
    },
    mutate: (crd) => {
      crd.spec.group = 'x.k8s.io';
      crd.spec.versions[0]!.served = false;
    },
    want: [],
  },
  {
    name: 'an approval that turns invalid is refused',
    domain: 'k8s.io',
    old: (crd) => {
      crd.spec.group = 'x.k8s.io';
      crd.metadata.annotations = { 'api-approved.kubernetes.io': 'unapproved' };
    },
    mutate: (crd) => {
      crd.spec.group = 'x.k8s.io';
      crd.metadata.annotations = { 'api-approved.kubernetes.io': 'later' };
    },
    want: [
      'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "later": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ],
  },
];

function mapList(keyRequired: boolean): JSONSchemaProps {
  return {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['key'],
    items: { type: 'object', required: keyRequired ? ['key'] : [], properties: { key: { type: 'string' }, value: { type: 'string' } } },
  };
}

for (const c of updateCases) {
  test(`crd update validation: ${c.name}`, () => {
    const old = validCRD();
    c.old(old);
    const crd = validCRD();
    c.mutate(crd);
    assert.deepEqual(validateCustomResourceDefinitionUpdate(crd, old, { domain: c.domain ?? 'plat.io' }).map(String), c.want);
  });
}
