// A node's capacity and what of it pods may use (allocatable): capacity less systemReserved,
// platReserved and the hard eviction thresholds, as the kubelet computes node allocatable.
import { parseQuantity, type Quantity } from '@plat/apimachinery';
import type { Machine } from './machine.js';

export interface ReservationConfig {
  maxPods: number;
  systemReserved?: Record<string, string>;
  platReserved?: Record<string, string>;
  evictionHard?: Record<string, string>;
}

// The hard eviction signals that reserve a resource, as the kubelet's allocatable subtracts them.
const evictionSignalResource: Record<string, string> = { 'memory.available': 'memory', 'nodefs.available': 'ephemeral-storage' };

/** Bytes as the kubelet writes memory: in Ki when whole, else plain bytes. */
const bytes = (n: number): string => (n % 1024 === 0 ? `${n / 1024}Ki` : String(n));

export function capacityOf(machine: Machine, maxPods: number): Record<string, string> {
  const capacity: Record<string, string> = { cpu: String(machine.cpus), memory: bytes(machine.memoryBytes), pods: String(maxPods) };
  if (machine.rootFsBytes !== undefined) capacity['ephemeral-storage'] = bytes(machine.rootFsBytes);
  return capacity;
}

/** A threshold's amount: a quantity, or a percentage of the capacity ("10%"). */
function thresholdAmount(value: string, capacity: Quantity): Quantity {
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  if (!percent) return parseQuantity(value);
  const share = Number(percent[1]) / 100;
  return parseQuantity(String(Math.ceil(capacity.ratioTo(parseQuantity('1')) * share)));
}

export function allocatableOf(capacity: Record<string, string>, config: ReservationConfig): Record<string, string> {
  const allocatable: Record<string, string> = {};
  const zero = parseQuantity('0');
  for (const [name, text] of Object.entries(capacity)) {
    const total = parseQuantity(text);
    let left = total;
    for (const reserved of [config.systemReserved, config.platReserved]) {
      const amount = reserved?.[name];
      if (amount) left = left.sub(parseQuantity(amount));
    }
    for (const [signal, threshold] of Object.entries(config.evictionHard ?? {})) {
      if (evictionSignalResource[signal] === name) left = left.sub(thresholdAmount(threshold, total));
    }
    allocatable[name] = (left.sign() < 0 ? zero : left).toString();
  }
  return allocatable;
}
