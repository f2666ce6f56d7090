// Validation of what the node keeps back from pods: reserved resources, reserved CPUs and memory, node-allocatable enforcement.
import { duplicate, forbidden, invalid, notSupported, required, type FieldError } from '@plat/apimachinery';
import { parseCPUList } from '../cpuset.js';
import { path, quantity, type ValidationContext } from './validate-helpers.js';

// The spec's lists: systemReserved covers cpu and memory; platReserved also root storage (ephemeral-storage).
const SYSTEM_RESERVED_RESOURCES = ['cpu', 'memory'];
const PLAT_RESERVED_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];
const ENFORCEMENTS = ['pods', 'system-reserved', 'plat-reserved', 'none'];

export function validateAllocatable({ config: c }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  reservedResources(errors, 'systemReserved', c.systemReserved, SYSTEM_RESERVED_RESOURCES);
  reservedResources(errors, 'platReserved', c.platReserved, PLAT_RESERVED_RESOURCES);

  if (c.reservedSystemCPUs) {
    try {
      parseCPUList(c.reservedSystemCPUs);
    } catch (error) {
      errors.push(invalid(path('reservedSystemCPUs'), c.reservedSystemCPUs, `not a CPU list: ${(error as Error).message}`));
    }
    if (c.systemReservedCgroup || c.platReservedCgroup) {
      errors.push(forbidden(path('reservedSystemCPUs'), 'cannot be used with systemReservedCgroup or platReservedCgroup'));
    }
  }

  const enforcements = c.enforceNodeAllocatable ?? [];
  const seen = new Set<string>();
  for (const [i, value] of enforcements.entries()) {
    const at = path('enforceNodeAllocatable').index(i);
    if (seen.has(value)) {
      errors.push(duplicate(at, value));
      continue;
    }
    seen.add(value);
    if (value === 'none') {
      if (enforcements.length > 1) errors.push(invalid(at, value, 'no other enforcement may be listed with "none"'));
      continue;
    }
    if (!ENFORCEMENTS.includes(value)) {
      errors.push(notSupported(at, value, ENFORCEMENTS));
      continue;
    }
    if (value === 'system-reserved' && !c.systemReservedCgroup) {
      errors.push(required(path('systemReservedCgroup'), 'must be set when "system-reserved" is in enforceNodeAllocatable'));
    }
    if (value === 'plat-reserved' && !c.platReservedCgroup) {
      errors.push(required(path('platReservedCgroup'), 'must be set when "plat-reserved" is in enforceNodeAllocatable'));
    }
    if (!c.cgroupsPerQOS) errors.push(invalid(at, value, 'requires cgroupsPerQOS to be true'));
  }

  reservedMemory(errors, c.reservedMemory ?? []);
  return errors;
}

function reservedResources(errors: FieldError[], field: string, resources: Record<string, string> | undefined, supported: string[]): void {
  for (const [name, value] of Object.entries(resources ?? {})) {
    const at = path(field).key(name);
    if (!supported.includes(name)) errors.push(notSupported(at, name, supported));
    const amount = quantity(errors, at, value);
    if (amount && amount.sign() < 0) errors.push(invalid(at, value, 'must not be negative'));
  }
}

type MemoryReservation = { numaNode?: number; limits?: Record<string, string> };

function reservedMemory(errors: FieldError[], reservations: MemoryReservation[]): void {
  const seen = new Set<string>();
  reservations.forEach((reservation, i) => {
    const at = path('reservedMemory').index(i);
    if (reservation.numaNode === undefined) errors.push(required(at.child('numaNode')));
    if (!reservation.limits || Object.keys(reservation.limits).length === 0) errors.push(required(at.child('limits')));
    for (const [resource, value] of Object.entries(reservation.limits ?? {})) {
      const limitAt = at.child('limits').key(resource);
      if (resource !== 'memory' && !resource.startsWith('hugepages-')) {
        errors.push(invalid(limitAt, resource, 'only memory and hugepages-<size> limits are supported'));
      }
      const amount = quantity(errors, limitAt, value);
      if (amount?.isZero()) errors.push(invalid(limitAt, value, 'reserved memory may not be zero'));
      else if (amount && amount.sign() < 0) errors.push(invalid(limitAt, value, 'reserved memory may not be negative'));
      const key = `${reservation.numaNode ?? ''}/${resource}`;
      if (seen.has(key)) errors.push(duplicate(limitAt, resource));
      seen.add(key);
    }
  });
}
