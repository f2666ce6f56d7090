import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocatableOf, capacityOf } from './allocatable.js';
import type { Machine } from './machine.js';

const machine = (memoryBytes: number, rootFsBytes?: number): Machine => ({
  hostname: 'h', cpus: 4, memoryBytes, rootFsBytes, machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '',
  operatingSystem: 'linux', architecture: 'amd64', internalIP: '127.0.0.1',
});

test('capacity: CPUs, memory in Ki, pods from maxPods, the root filesystem when known', () => {
  assert.deepEqual(capacityOf(machine(8 * 2 ** 30, 100 * 2 ** 30), 110), { cpu: '4', memory: '8388608Ki', pods: '110', 'ephemeral-storage': '104857600Ki' });
  assert.deepEqual(capacityOf(machine(1000), 5), { cpu: '4', memory: '1000', pods: '5' });
});

const cases: { name: string; capacity: Record<string, string>; config: Parameters<typeof allocatableOf>[1]; want: Record<string, string> }[] = [
  { name: 'nothing reserved', capacity: { cpu: '4', pods: '110' }, config: { maxPods: 110 }, want: { cpu: '4', pods: '110' } },
  {
    name: 'system and platform reservations add up',
    capacity: { cpu: '4', memory: '8Gi' },
    config: { maxPods: 110, systemReserved: { cpu: '500m', memory: '1Gi' }, platReserved: { cpu: '250m' } },
    want: { cpu: '3250m', memory: '7Gi' },
  },
  {
    name: 'hard eviction thresholds: a quantity of memory, a share of the root filesystem',
    capacity: { memory: '8Gi', 'ephemeral-storage': '1000' },
    config: { maxPods: 110, evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'imagefs.available': '15%' } },
    want: { memory: '8092Mi', 'ephemeral-storage': '900' },
  },
  { name: 'never below zero', capacity: { cpu: '1' }, config: { maxPods: 110, systemReserved: { cpu: '2' } }, want: { cpu: '0' } },
];
for (const c of cases) test(`allocatable: ${c.name}`, () => assert.deepEqual(allocatableOf(c.capacity, c.config), c.want));
