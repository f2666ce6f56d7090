// PriorityLevelConfiguration (flowcontrol.apiserver.{domain}, cluster-scoped): a priority level of
// API Priority and Fairness, its share of the server's concurrency and what is done with requests
// over it. Kubernetes 1.28 serves v1beta3 (preferred) and v1beta2 (deprecated in 1.26, removed in
// 1.29), whose Limited shares are named assuredConcurrencyShares; v1beta2's objects are stored in
// v1beta3's form, converted on the way in and out (conversion.ts), as upstream stores one form.
import type { ResourceDefinition, TableColumn } from '@plat/registry';
import { ageColumn, nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';
import { priorityLevelToV1beta2, priorityLevelToV1beta3 } from './conversion.js';
import { setPriorityLevelConfigurationDefaults } from './defaults.js';
import { v1beta2Deprecation } from './flow-schema.js';
import { priorityLevelConfigurationSchema } from './schema.js';
import { prepareForCreate, prepareForUpdate, statusSubresource } from './strategy.js';
import { sharesField, type FlowControlVersion, type PriorityLevelConfigurationObject } from './types.js';
import { validatePriorityLevelConfiguration } from './validation.js';

/** The object in v1beta3's form, which the rules judge: a v1beta2 one converted. */
const asV1beta3 = (level: PriorityLevelConfigurationObject, version: FlowControlVersion): PriorityLevelConfigurationObject =>
  version === 'v1beta2' ? priorityLevelToV1beta3(level) : level;

const queuingOf = (level: PriorityLevelConfigurationObject) => level.spec?.limited?.limitResponse?.queuing;

/**
 * Upstream's columns (pkg/printers/internalversion), the same in both versions: upstream prints the
 * internal object, whose field is NominalConcurrencyShares whichever version is read.
 */
function columns(version: FlowControlVersion): TableColumn<PriorityLevelConfigurationObject>[] {
  const shares = sharesField(version);
  const limitedCell = (value: (level: PriorityLevelConfigurationObject) => number | undefined) => (level: PriorityLevelConfigurationObject) =>
    level.spec?.limited ? (value(level) ?? 0) : '<none>';
  const queuingCell = (value: (level: PriorityLevelConfigurationObject) => number | undefined) => (level: PriorityLevelConfigurationObject) =>
    queuingOf(level) ? (value(level) ?? 0) : '<none>';
  return [
    nameColumn<PriorityLevelConfigurationObject>(),
    {
      name: 'Type',
      type: 'string',
      description:
        '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
      priority: 0,
      value: (level) => level.spec?.type ?? '',
    },
    {
      name: 'NominalConcurrencyShares',
      type: 'string',
      description:
        "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server's concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level. This field has a default value of 30.",
      priority: 0,
      value: limitedCell((level) => level.spec?.limited?.[shares]),
    },
    {
      name: 'Queues',
      type: 'string',
      description:
        '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.',
      priority: 0,
      value: queuingCell((level) => queuingOf(level)?.queues),
    },
    {
      name: 'HandSize',
      type: 'string',
      description:
        "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.",
      priority: 0,
      value: queuingCell((level) => queuingOf(level)?.handSize),
    },
    {
      name: 'QueueLengthLimit',
      type: 'string',
      description:
        '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.',
      priority: 0,
      value: queuingCell((level) => queuingOf(level)?.queueLengthLimit),
    },
    ageColumn<PriorityLevelConfigurationObject>(),
  ];
}

export function priorityLevelConfigurationDefinition(version: FlowControlVersion) {
  const setDefaults = (level: PriorityLevelConfigurationObject): void => setPriorityLevelConfigurationDefaults(level, version);
  // A v1beta2 request's Limited shares are reported under v1beta2's name, as upstream's are.
  const validate = (level: PriorityLevelConfigurationObject) => validatePriorityLevelConfiguration(asV1beta3(level, version), sharesField(version));
  return {
    group: 'flowcontrol.apiserver.{domain}',
    version,
    kind: 'PriorityLevelConfiguration',
    resource: 'prioritylevelconfigurations',
    singularName: 'prioritylevelconfiguration',
    namespaced: false,
    verbs: allVerbs,
    schema: priorityLevelConfigurationSchema(version),
    zeroValue: { spec: {}, status: {} },
    strategy: {
      prepareForCreate,
      prepareForUpdate: (level, old) => prepareForUpdate(level, old, setDefaults),
      default: setDefaults,
      validate,
      // Upstream's ValidatePriorityLevelConfigurationUpdate judges the new object as a new one.
      validateUpdate: validate,
    },
    subresources: { status: statusSubresource<PriorityLevelConfigurationObject>() },
    tableColumns: columns(version),
    allowCreateOnUpdate: false,
    ...(version === 'v1beta2' && {
      deprecated: v1beta2Deprecation,
      storedAs: {
        group: 'flowcontrol.apiserver.{domain}',
        version: 'v1beta3',
        kind: 'PriorityLevelConfiguration',
        resource: 'prioritylevelconfigurations',
        toStored: priorityLevelToV1beta3,
        fromStored: priorityLevelToV1beta2,
      },
    }),
    protobuf: {
      message: `k8s.io.api.flowcontrol.${version}.PriorityLevelConfiguration`,
      // The *int32 fields, which Go writes when set, even to 0.
      pointers: ['spec.limited.lendablePercent', 'spec.limited.borrowingLimitPercent', 'spec.exempt.nominalConcurrencyShares', 'spec.exempt.lendablePercent'],
    },
  } satisfies ResourceDefinition<PriorityLevelConfigurationObject>;
}
