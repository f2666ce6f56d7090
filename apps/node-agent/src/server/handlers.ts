// The node's endpoints behind authentication (or on the read-only port): health, configuration,
// metrics, logs, the log verbosity, the pods the runtime runs (none: it is simulated) and the
// streaming endpoints, which answer 501 since the simulated runtime has no containers to reach.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runHealthChecks, type HealthCheck } from '@plat/serving';
import type { Registry } from 'prom-client';
import { plain, serveLogPath } from './log-files.js';
import { isSubpath } from './request-attributes.js';

export interface HandlerOptions {
  checks: readonly HealthCheck[];
  /** The defaulted configuration as /configz shows it. */
  configz: () => unknown;
  registry: Registry;
  /** enableSystemLogHandler: /logs/ serves this directory; absent: no /logs/. */
  logDir?: string;
  /** enableDebugFlagsHandler: PUT /debug/flags/v sets the log verbosity. */
  setVerbosity?: (level: number) => void;
  /** enableDebuggingHandlers: the streaming endpoints are routed (to their 501). */
  debuggingHandlers: boolean;
}

// The kubelet's streaming and container endpoints: each needs a container runtime.
const streamingPaths = ['/exec/', '/attach/', '/portForward/', '/run/', '/containerLogs/'];

/** A Handler answers a request or says it has no route for it (false). */
export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

export function nodeHandlers(options: HandlerOptions, readOnly = false): Handler {
  return async (req, res, url) => {
    const path = url.pathname;
    if (path === '/healthz' || path.startsWith('/healthz/')) {
      const report = await runHealthChecks('healthz', options.checks, url.searchParams);
      plain(res, report.status, report.body);
      return true;
    }
    if (path === '/pods' || path === '/pods/') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] }));
      return true;
    }
    if (path === '/metrics') {
      res.writeHead(200, { 'content-type': options.registry.contentType });
      res.end(await options.registry.metrics());
      return true;
    }
    if (readOnly) return false;
    if (path === '/configz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kubeletconfig: options.configz() }));
      return true;
    }
    if (options.logDir !== undefined && isSubpath(path, '/logs/')) {
      if (path === '/logs') {
        res.writeHead(301, { location: '/logs/' });
        res.end();
        return true;
      }
      await serveLogPath(options.logDir, decodeURIComponent(path.slice('/logs/'.length)), res);
      return true;
    }
    if (options.setVerbosity && path === '/debug/flags/v') {
      if (req.method !== 'PUT') return void plain(res, 406, 'unsupported http method'), true;
      const text = (await readText(req)).trim();
      const level = /^\d+$/.test(text) ? Number(text) : NaN;
      if (!Number.isSafeInteger(level)) return void plain(res, 400, `failed set klog.logging.verbosity ${text}: strconv.ParseUint: parsing ${JSON.stringify(text)}: invalid syntax`), true;
      options.setVerbosity(level);
      plain(res, 200, `successfully set klog.logging.verbosity to ${text}`);
      return true;
    }
    if (options.debuggingHandlers && streamingPaths.some((prefix) => isSubpath(path, prefix))) {
      const what = path.split('/')[1];
      plain(res, 501, `${what} is not implemented: this agent's container runtime is simulated and runs no containers\n`);
      return true;
    }
    return false;
  };
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1024) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
