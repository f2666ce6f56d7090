// Graceful shutdown, as kube-apiserver's: /readyz fails first (and stays failing through
// --shutdown-delay-duration while requests are still served), then no new connections, requests
// in flight drained, long-running ones (watches) told to end, connections closed, then what was
// running stopped and storage closed.
import type { Storage } from '@plat/storage';
import type { Logger } from 'pino';
import type { AuditSink } from '@plat/audit';
import type { ShutdownCheck } from '@plat/filters';
import type { SecurePort } from '@plat/filters';
import type { UserRateLimiter } from '@plat/filters';
import type { RequestTracker } from '@plat/filters';

/** How long streams get to end after being told to, before their connections are closed. */
const STREAM_END_GRACE_MS = 5000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface ShutdownParts {
  check: ShutdownCheck;
  securePort: SecurePort;
  tracker: RequestTracker;
  audit: AuditSink | undefined;
  /** What runs from start to stop (the resource API's). */
  stopServing: () => void;
  userRateLimiter: UserRateLimiter | undefined;
  storage: Storage;
  logger: Logger;
  /** --shutdown-delay-duration; default 0. */
  delayMs: number;
  /** How long requests in flight are waited for before their connections are closed; default 30 s. */
  timeoutMs: number;
}

export async function shutDown(parts: ShutdownParts): Promise<void> {
  const { check, securePort, tracker, logger, delayMs, timeoutMs } = parts;
  check.begin();
  logger.info({ delayMs }, 'shutdown: /readyz now fails');
  if (delayMs > 0) await sleep(delayMs);

  // Requests that still arrive on open connections are served; an HTTP/1.1 connection then
  // closes, an HTTP/2 one is told to go (GOAWAY) once its streams are done, so that the client
  // reconnects elsewhere.
  const closed = securePort.close();
  securePort.closeIdleConnections();
  logger.info({ inFlight: tracker.pending }, 'shutdown: stopped accepting connections, waiting for requests in flight');
  const drained = await tracker.waitFor(() => tracker.pending, timeoutMs);
  if (!drained) logger.warn({ inFlight: tracker.pending, timeoutMs }, 'shutdown: requests still in flight at the timeout; closing them');

  const streams = tracker.endLongRunning();
  if (streams) logger.info({ streams }, 'shutdown: ended long-running requests');
  await tracker.waitFor(() => tracker.total, drained ? Math.min(STREAM_END_GRACE_MS, timeoutMs) : 0);
  // Whatever is still open now is idle keep-alive or past its deadline.
  securePort.closeAllConnections();
  await closed;
  // Every response has closed, so every audit event has been handed to the log: flush it.
  await parts.audit?.close();
  parts.stopServing();
  await parts.userRateLimiter?.close?.();
  await parts.storage.close();
  logger.info('shutdown: complete');
}
