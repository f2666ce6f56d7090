// The agent's three listeners: healthz (plain HTTP, no credentials: for the machine's own probes),
// the secured server (TLS; authentication, then authorization of the node subresource the path maps
// to, then the handlers) and, when readOnlyPort is set, the read-only port (plain HTTP, no
// credentials, health, pods and metrics only).
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { MAX_HEADER_BYTES } from '@plat/apimachinery';
import type { Logger } from '@plat/client';
import { answerAndClose, goErrorResponse, runHealthChecks, type HealthCheck } from '@plat/serving';
import type { RequestAuthenticator } from './authentication.js';
import type { RequestAuthorizer } from './authorization.js';
import type { Handler } from './handlers.js';
import { plain } from './log-files.js';
import { requestAttributes } from './request-attributes.js';

export interface Listener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A request node cannot parse, answered as the kubelet's Go server answers it: a header section past
 * MaxHeaderBytes (1 MiB, as the kubelet sets it; node's own default is 16 KiB) is a 431, anything
 * else malformed a 400, in net/http's plain text; a client gone, or too slow to send its request,
 * gets no answer.
 */
function refuseUnparsable(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  }
  answerAndClose(socket, goErrorResponse(error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request'));
}

/** What every agent server is created with: Go's header bound. */
const httpOptions = { maxHeaderSize: MAX_HEADER_BYTES };

async function listen(server: Server, host: string, port: number): Promise<Listener> {
  server.on('clientError', refuseUnparsable);
  server.listen(port, host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers with `handler`, 404 where it has no route, and a logged 500 where it throws. */
function serve(handler: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>, logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://agent');
    handler(req, res, url).catch((err: unknown) => {
      logger.error({ err, path: url.pathname }, 'request failed');
      if (!res.headersSent) plain(res, 500, 'Internal Server Error\n');
      else res.destroy();
    });
  };
}

export function startHealthz(host: string, port: number, checks: readonly HealthCheck[], logger: Logger): Promise<Listener> {
  const server = createHttpServer(
    httpOptions,
    serve(async (_req, res, url) => {
      if (url.pathname !== '/healthz') return plain(res, 404, '404 page not found\n');
      const report = await runHealthChecks('healthz', checks, url.searchParams);
      plain(res, report.status, report.body);
    }, logger),
  );
  return listen(server, host, port);
}

export function startReadOnly(host: string, port: number, handler: Handler, logger: Logger): Promise<Listener> {
  const server = createHttpServer(
    httpOptions,
    serve(async (req, res, url) => {
      if (!(await handler(req, res, url))) plain(res, 404, '404 page not found\n');
    }, logger),
  );
  return listen(server, host, port);
}

export interface SecuredOptions {
  host: string;
  port: number;
  tls: { cert: string; key: string; ca?: string; minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'; ciphers?: string };
  nodeName: string;
  authenticator: RequestAuthenticator;
  authorizer: RequestAuthorizer;
  handler: Handler;
  logger: Logger;
}

export async function startSecured(options: SecuredOptions): Promise<Listener> {
  const { authenticator, authorizer, handler, nodeName, logger, tls } = options;
  const server = createHttpsServer(
    {
      cert: tls.cert,
      key: tls.key,
      // Client certificates are asked for, not required: a request may bring a token instead.
      ...(tls.ca && { ca: tls.ca, requestCert: true, rejectUnauthorized: false }),
      minVersion: tls.minVersion ?? 'TLSv1.2',
      ...(tls.ciphers && { ciphers: tls.ciphers }),
      honorCipherOrder: true,
      ...httpOptions,
    },
    serve(async (req, res, url) => {
      let authenticated;
      try {
        authenticated = await authenticator.authenticate(req);
      } catch (err) {
        logger.warn({ err }, 'unable to authenticate the request due to an error');
        return plain(res, 401, 'Unauthorized');
      }
      if ('failure' in authenticated) return plain(res, 401, 'Unauthorized');
      const { user } = authenticated;
      const attributes = requestAttributes(req.method ?? 'GET', url.pathname, nodeName);
      const described = `user=${user.name}, verb=${attributes.verb}, resource=${attributes.resource}, subresource=${attributes.subresource}`;
      let allowed: boolean;
      try {
        allowed = await authorizer.authorize(user, attributes);
      } catch (err) {
        logger.warn({ err, path: url.pathname }, 'authorization error');
        return plain(res, 500, `Authorization error (${described})`);
      }
      if (!allowed) return plain(res, 403, `Forbidden (${described})`);
      if (!(await handler(req, res, url))) plain(res, 404, '404 page not found\n');
    }, logger),
  );
  return listen(server as unknown as Server, options.host, options.port);
}
