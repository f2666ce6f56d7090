// The audit filter (upstream's WithAudit): one audit.<domain>/v1 Event per request, at level
// Metadata and stage ResponseComplete, handed to the audit sink (audit.ts) when the response closes.
import { randomUUID } from 'node:crypto';
import type { Middleware, RequestState } from '../context.js';
import type { AuditEvent, AuditSink, AuditUser } from '../audit.js';
import type { UserInfo } from '../user.js';

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

/**
 * Records each request when its response closes: a watch when it ends, a request cut short by the
 * client as well. Runs outermost (after request info), so it sees the final status of everything.
 * Filters and handlers add annotations to ctx.state.auditAnnotations.
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
