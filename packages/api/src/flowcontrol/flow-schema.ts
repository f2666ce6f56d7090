// FlowSchema (flowcontrol.apiserver.{domain}, cluster-scoped): which requests go to which priority
// level of API Priority and Fairness, and how they are told apart into flows. Kubernetes 1.28
// serves v1beta3 (preferred) and v1beta2 (deprecated in 1.26, removed in 1.29), the same shape;
// both are stored in v1beta3's form. Nothing enforces them yet: as upstream with
// --enable-priority-and-fairness=false, the API is served and no request is classified.
import type { ResourceDefinition, TableColumn } from '@plat/registry';
import { ageColumn, nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';
import { setFlowSchemaDefaults } from './defaults.js';
import { flowSchemaSchema } from './schema.js';
import { prepareForCreate, prepareForUpdate, statusSubresource } from './strategy.js';
import type { FlowControlVersion, FlowSchemaObject } from './types.js';
import { validateFlowSchema } from './validation.js';

/** v1beta2's deprecation, as upstream's prerelease-lifecycle says it: introduced 1.23, deprecated 1.26, removed 1.29, replaced by v1beta3. */
export const v1beta2Deprecation = { deprecatedRelease: '1.26', removedRelease: '1.29', replacementVersion: 'v1beta3' } as const;

/** Upstream's FlowSchema columns (pkg/printers/internalversion), printed from the object as stored. */
const columns: TableColumn<FlowSchemaObject>[] = [
  nameColumn<FlowSchemaObject>(),
  {
    name: 'PriorityLevel',
    type: 'string',
    description: '`name` is the name of the priority level configuration being referenced Required.',
    priority: 0,
    value: (fs) => fs.spec?.priorityLevelConfiguration?.name ?? '',
  },
  {
    name: 'MatchingPrecedence',
    type: 'string',
    description:
      '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.',
    priority: 0,
    value: (fs) => fs.spec?.matchingPrecedence ?? 0,
  },
  {
    name: 'DistinguisherMethod',
    type: 'string',
    description: '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.',
    priority: 0,
    value: (fs) => (fs.spec?.distinguisherMethod ? (fs.spec.distinguisherMethod.type ?? '') : '<none>'),
  },
  ageColumn<FlowSchemaObject>(),
  {
    name: 'MissingPL',
    type: 'string',
    description: 'references a broken or non-existent PriorityLevelConfiguration',
    priority: 0,
    // The Dangling condition's status, which the configuration consumer writes; "?" until it has.
    value: (fs) => fs.status?.conditions?.find((condition) => condition.type === 'Dangling')?.status ?? '?',
  },
];

export function flowSchemaDefinition(version: FlowControlVersion) {
  return {
    group: 'flowcontrol.apiserver.{domain}',
    version,
    kind: 'FlowSchema',
    resource: 'flowschemas',
    singularName: 'flowschema',
    namespaced: false,
    verbs: allVerbs,
    schema: flowSchemaSchema(version),
    zeroValue: { spec: {}, status: {} },
    strategy: {
      prepareForCreate,
      prepareForUpdate: (fs, old) => prepareForUpdate(fs, old, setFlowSchemaDefaults),
      default: setFlowSchemaDefaults,
      validate: validateFlowSchema,
      // Upstream's ValidateFlowSchemaUpdate judges the new object as a new one.
      validateUpdate: validateFlowSchema,
    },
    subresources: { status: statusSubresource<FlowSchemaObject>() },
    tableColumns: columns,
    allowCreateOnUpdate: false,
    ...(version === 'v1beta2' && {
      deprecated: v1beta2Deprecation,
      // The same shape as v1beta3, stored as v1beta3: one stored form, whichever version wrote it.
      storedAs: {
        group: 'flowcontrol.apiserver.{domain}',
        version: 'v1beta3',
        kind: 'FlowSchema',
        resource: 'flowschemas',
        toStored: (fs: FlowSchemaObject) => structuredClone(fs),
        fromStored: (stored) => structuredClone(stored) as FlowSchemaObject,
      },
    }),
    protobuf: { message: `k8s.io.api.flowcontrol.${version}.FlowSchema` },
  } satisfies ResourceDefinition<FlowSchemaObject>;
}
