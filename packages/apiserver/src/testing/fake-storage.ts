// Storage for servers without the resource API: it answers health checks, as the test decides.
import type { Storage } from '@plat/storage';

/** Storage that only answers health checks, as `health()` decides; `closed` counts close(). */
export function fakeStorage(health: () => Promise<void> = async () => {}): Storage & { closed: number } {
  const fake = {
    closed: 0,
    checkHealth: () => health(),
    close: async () => {
      fake.closed++;
    },
  };
  return fake as unknown as Storage & { closed: number };
}
