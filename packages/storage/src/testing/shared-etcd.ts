// An etcd for an end-to-end test that needs a plain single member and nothing of it beyond its own
// keys (it does not stop, kill, freeze or compact it, nor read revisions as absolute numbers): the
// run's etcd, named in PLAT_TEST_ETCD by scripts/run-tests.mjs, with a key prefix of the test's own;
// or, for a test run by hand alone, an etcd of its own.
import { randomBytes } from 'node:crypto';
import { startEtcd } from './etcd-process.js';

export interface TestEtcd {
  /** The client URL. */
  readonly endpoint: string;
  /** The key prefix the test's servers use (--etcd-prefix). */
  readonly prefix: string;
  /** The apiserver's flags for it: --etcd-servers and --etcd-prefix. */
  readonly flags: readonly string[];
  /** Removes the test's keys from the shared etcd, or stops its own. */
  stop(): Promise<void>;
}

/** The environment variable that names the run's shared etcd. */
export const SHARED_ETCD_VARIABLE = 'PLAT_TEST_ETCD';

export async function sharedEtcd(): Promise<TestEtcd> {
  const shared = process.env[SHARED_ETCD_VARIABLE];
  if (!shared) {
    const own = await startEtcd();
    return { endpoint: own.endpoint, prefix: '/registry', flags: [`--etcd-servers=${own.endpoint}`], stop: () => own.stop() };
  }
  const prefix = `/t-${randomBytes(6).toString('hex')}`;
  return {
    endpoint: shared,
    prefix,
    flags: [`--etcd-servers=${shared}`, `--etcd-prefix=${prefix}`],
    stop: () => deletePrefix(shared, `${prefix}/`),
  };
}

/** Deletes every key under `prefix` through etcd's JSON gateway (v3 API), so the shared etcd does not grow for the run. */
async function deletePrefix(endpoint: string, prefix: string): Promise<void> {
  const key = Buffer.from(prefix);
  const end = Buffer.from(prefix);
  end[end.length - 1]! += 1;
  const response = await fetch(`${endpoint}/v3/kv/deleterange`, {
    method: 'POST',
    body: JSON.stringify({ key: key.toString('base64'), range_end: end.toString('base64') }),
  }).catch(() => undefined);
  await response?.arrayBuffer();
}
