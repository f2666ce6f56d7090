// What this machine is, as a node agent reports it: its CPUs, memory and root filesystem, its
// identity (machine and boot IDs), its operating system and addresses. Read once at start-up.
import { readFileSync, statfsSync } from 'node:fs';
import { arch, cpus, hostname, networkInterfaces, platform, release, totalmem } from 'node:os';

export interface Machine {
  hostname: string;
  cpus: number;
  memoryBytes: number;
  /** Bytes of the root filesystem; undefined where it cannot be read. */
  rootFsBytes: number | undefined;
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  /** GOOS and GOARCH names: linux, amd64. */
  operatingSystem: string;
  architecture: string;
  /** The first IPv4 address of an interface that is not loopback, else 127.0.0.1. */
  internalIP: string;
}

const readTrimmed = (path: string): string => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
};

// Node's names for architectures as Go's GOARCH spells them.
const goArch: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };

function osImage(): string {
  const text = readTrimmed('/etc/os-release');
  const pretty = /^PRETTY_NAME=("?)(.*)\1$/m.exec(text);
  return pretty?.[2] ?? 'Unknown';
}

function firstIPv4(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return '127.0.0.1';
}

function rootFsBytes(): number | undefined {
  try {
    const stats = statfsSync('/');
    return stats.blocks * stats.bsize;
  } catch {
    return undefined;
  }
}

export function readMachine(): Machine {
  return {
    hostname: hostname().toLowerCase(),
    cpus: cpus().length,
    memoryBytes: totalmem(),
    rootFsBytes: rootFsBytes(),
    machineID: readTrimmed('/etc/machine-id'),
    systemUUID: readTrimmed('/sys/class/dmi/id/product_uuid'),
    bootID: readTrimmed('/proc/sys/kernel/random/boot_id'),
    kernelVersion: release(),
    osImage: osImage(),
    operatingSystem: platform() === 'win32' ? 'windows' : platform(),
    architecture: goArch[arch()] ?? arch(),
    internalIP: firstIPv4(),
  };
}
