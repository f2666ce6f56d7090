// The audit log (--audit-log-path): one JSON line per request at the ResponseComplete stage, level
// Metadata, in upstream's audit.k8s.io/v1 Event shape. Lines go through a buffered file stream so a
// request never waits for the disk; close() flushes them all (graceful shutdown).
import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Logger } from 'pino';
import type { Middleware, RequestState } from './context.js';
import type { UserInfo } from './user.js';

export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

/** An audit.k8s.io/v1 Event at level Metadata (no request or response bodies). */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: 'Metadata';
  auditID: string;
  stage: 'ResponseComplete';
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus: { metadata: Record<string, never>; code: number; status?: string; message?: string; reason?: string };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where events go: a sink that must not block. */
export interface AuditSink {
  write(event: AuditEvent): void;
  /** Resolves once every event written before it is stored. */
  close(): Promise<void>;
}

/** Events as JSON lines appended to a file, through the stream's in-memory buffer. */
export class AuditFileLog implements AuditSink {
  private readonly stream: WriteStream;
  private failed = false;

  constructor(path: string, private readonly logger: Logger) {
    this.stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    this.stream.on('error', (err) => {
      // Logged once: serving goes on without the audit log rather than failing every request.
      if (!this.failed) logger.error({ err, path }, 'audit log: cannot write; audit events are being lost');
      this.failed = true;
    });
  }

  /** Resolves once the file is open (or failed to open), for callers that want to fail early. */
  async ready(): Promise<void> {
    if (this.stream.pending) await Promise.race([once(this.stream, 'ready'), once(this.stream, 'error').catch(() => undefined)]).catch(() => undefined);
  }

  write(event: AuditEvent): void {
    if (this.failed || this.stream.writableEnded) return;
    // write() buffers when the disk is slow; the request does not wait.
    this.stream.write(`${JSON.stringify(event)}\n`);
  }

  async close(): Promise<void> {
    if (this.stream.writableEnded) return;
    const finished = once(this.stream, 'finish').catch(() => undefined);
    this.stream.end();
    if (!this.failed) await finished;
    this.logger.debug('audit log: flushed and closed');
  }
}

/** Upstream's MicroTime: RFC 3339 with microseconds. */
const microTime = (date: Date): string => date.toISOString().replace(/Z$/, '000Z');

const auditUser = (user: UserInfo): AuditUser => ({
  username: user.name,
  ...(user.uid && { uid: user.uid }),
  groups: user.groups,
  ...(user.extra && Object.keys(user.extra).length > 0 && { extra: user.extra }),
});

/** X-Forwarded-For, then X-Real-Ip, then the peer: upstream's utilnet.SourceIPs, without duplicates. */
function sourceIPs(forwardedFor: string, realIp: string, remote: string | undefined): string[] {
  const ips = forwardedFor.split(',').map((ip) => ip.trim()).filter(Boolean);
  if (realIp.trim()) ips.push(realIp.trim());
  if (remote) ips.push(remote.replace(/^::ffff:/, ''));
  return [...new Set(ips)];
}

/**
 * Records each request when its response closes: a watch when it ends, a request cut short by the
 * client as well. Runs outermost (after request info), so it sees the final status of everything.
 * Handlers add annotations with `addAuditAnnotation`.
 */
export function auditFilter(sink: AuditSink, domain: string): Middleware {
  const apiVersion = `audit.${domain}/v1`;
  return async (ctx, next) => {
    const received = new Date();
    const header = ctx.get('Audit-ID');
    // Upstream honours a client's Audit-ID (for tracing through proxies) and returns it.
    const auditID = header && header.length <= 128 ? header : randomUUID();
    ctx.set('Audit-ID', auditID);
    ctx.state.auditAnnotations = {};
    const forwarded = ctx.get('X-Forwarded-For');
    const realIp = ctx.get('X-Real-Ip');
    const remote = ctx.req.socket.remoteAddress;
    ctx.res.once('close', () => {
      const state = ctx.state as Partial<RequestState>;
      const info = state.requestInfo;
      const authenticated = state.impersonator ?? state.user;
      const code = ctx.res.headersSent ? ctx.res.statusCode : ctx.status;
      const event: AuditEvent = {
        kind: 'Event',
        apiVersion,
        level: 'Metadata',
        auditID,
        stage: 'ResponseComplete',
        requestURI: ctx.originalUrl,
        verb: info?.verb || ctx.method.toLowerCase(),
        user: authenticated ? auditUser(authenticated) : {},
        ...(state.impersonator && state.user && { impersonatedUser: auditUser(state.user) }),
        sourceIPs: sourceIPs(forwarded, realIp, remote),
        ...(ctx.get('User-Agent') && { userAgent: ctx.get('User-Agent') }),
        ...(info?.isResourceRequest && {
          objectRef: {
            ...(info.resource && { resource: info.resource }),
            ...(info.namespace && { namespace: info.namespace }),
            ...(info.name && { name: info.name }),
            apiGroup: info.apiGroup,
            apiVersion: info.apiVersion,
            ...(info.subresource && { subresource: info.subresource }),
          },
        }),
        responseStatus: { metadata: {}, code, ...statusOf(ctx.body, code) },
        requestReceivedTimestamp: microTime(received),
        stageTimestamp: microTime(new Date()),
        ...(state.auditAnnotations && Object.keys(state.auditAnnotations).length > 0 && { annotations: state.auditAnnotations }),
      };
      sink.write(event);
    });
    await next();
  };
}

/** For an error response, the Status' status, reason and message, as upstream's responseStatus. */
function statusOf(body: unknown, code: number): { status?: string; reason?: string; message?: string } {
  if (code < 400 || typeof body !== 'string' || !body.startsWith('{"kind":"Status"')) return {};
  try {
    const status = JSON.parse(body) as { status?: string; reason?: string; message?: string };
    return {
      ...(status.status && { status: status.status }),
      ...(status.reason && { reason: status.reason }),
      ...(status.message && { message: status.message }),
    };
  } catch {
    return {};
  }
}
