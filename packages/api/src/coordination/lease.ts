// Lease (coordination.{domain}/v1, namespaced): a time-limited claim by one holder, used for leader
// election and node heartbeats. Its times are MicroTimes: RFC 3339 in UTC with six fractional digits.
import { invalid, newPath, type FieldError, type Lease, type LeaseSpec } from '@plat/apimachinery';
import type { ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { integerField, objectSchema, stringField, timeField } from '../common/schema.js';
import { ageColumn, nameColumn } from '../common/table.js';
import { allVerbs } from '../common/verbs.js';
import { formatMicroTime } from '../common/time.js';

export { formatMicroTime };

function validateLeaseSpec(spec: LeaseSpec | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const path = newPath('spec');
  if (spec?.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0) {
    errors.push(invalid(path.child('leaseDurationSeconds'), spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec?.leaseTransitions !== undefined && spec.leaseTransitions < 0) {
    errors.push(invalid(path.child('leaseTransitions'), spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  return errors;
}

export const leaseDefinition = {
  group: 'coordination.{domain}',
  version: 'v1',
  kind: 'Lease',
  // Upstream's zero value holds these structs (non-pointer fields).
  zeroValue: { spec: {} },
  resource: 'leases',
  singularName: 'lease',
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema('A lease: a claim on something, held by one holder and renewed before it expires.', {
    spec: objectSchema('The specification of the lease.', {
      holderIdentity: stringField('The identity of the holder of the current lease.'),
      leaseDurationSeconds: integerField(
        'How long candidates for the lease wait to force-acquire it, measured from the last observed renewTime.',
      ),
      acquireTime: timeField('When the current lease was acquired (a MicroTime).'),
      renewTime: timeField('When the current holder last updated the lease (a MicroTime).'),
      leaseTransitions: integerField('The number of transitions of the lease between holders.'),
    }),
  }),
  strategy: {
    // Times are stored as upstream serializes them, whatever RFC 3339 form they came in.
    default(lease) {
      const spec = lease.spec;
      if (spec?.acquireTime) spec.acquireTime = formatMicroTime(spec.acquireTime);
      if (spec?.renewTime) spec.renewTime = formatMicroTime(spec.renewTime);
    },
    validate: (lease) => validateLeaseSpec(lease.spec),
    validateUpdate: (lease) => validateLeaseSpec(lease.spec),
  },
  tableColumns: [
    nameColumn<Lease>(),
    {
      name: 'Holder',
      type: 'string',
      description: 'The identity of the holder of the current lease.',
      priority: 0,
      value: (lease) => lease.spec?.holderIdentity ?? '<unknown>',
    },
    ageColumn<Lease>(),
  ],
  allowCreateOnUpdate: true,
  protobuf: {
    message: 'k8s.io.api.coordination.v1.Lease',
    // Every LeaseSpec field is a pointer upstream: leaseTransitions: 0 is kept.
    pointers: ['spec.holderIdentity', 'spec.leaseDurationSeconds', 'spec.acquireTime', 'spec.renewTime', 'spec.leaseTransitions'],
  },
} satisfies ResourceDefinition<Lease>;
