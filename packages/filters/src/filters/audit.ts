// The audit filters (upstream's WithAudit): the audit policy decides, per request, the level and
// the stages recorded; each recorded stage is one audit.<domain>/v1 Event handed to the sink
// (audit.ts). RequestReceived once the user is known, ResponseStarted when a watch's headers go
// out, ResponseComplete when the response closes, Panic instead when a handler failed with an
// unexpected error (a 500). At Request and RequestResponse the request body, and at
// RequestResponse the response object, join the event (resource requests only, as upstream).
import { randomUUID } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { Middleware, RequestContext, RequestState } from '../context.js';
import type { AuditEvent, AuditResponseStatus, AuditSink, AuditUser } from '@plat/audit';
import { evaluateAuditPolicy, levelAtLeast, type AuditPolicy, type AuditStage, type RequestAuditConfig } from '@plat/audit';
import type { UserInfo } from '@plat/authn';

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

/** An object without metadata.managedFields (a list's items too), for omitManagedFields. */
function withoutManagedFields(object: unknown): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return object;
  const record = object as { metadata?: Record<string, unknown>; items?: unknown[] };
  let result: Record<string, unknown> = record;
  if (record.metadata && 'managedFields' in record.metadata) {
    const { managedFields: _dropped, ...metadata } = record.metadata;
    result = { ...result, metadata };
  }
  if (Array.isArray(record.items)) result = { ...result, items: record.items.map(withoutManagedFields) };
  return result;
}

/** The request body as the event carries it: JSON or YAML decoded; other media types (Protobuf) are left out. */
function decodeRequestBody(bytes: Buffer, mediaType: string): unknown {
  const text = bytes.toString('utf8');
  try {
    if (mediaType === 'application/yaml' || mediaType === 'application/apply-patch+yaml') return parseYaml(text);
    if (!mediaType || mediaType.endsWith('json')) return JSON.parse(text);
  } catch {
    // A body the handler refused as malformed: no object to record.
  }
  return undefined;
}

/** One request's audit: what the policy decided, and what the handlers noted for the events. */
export class RequestAudit {
  config?: RequestAuditConfig;
  readonly annotations: Record<string, string> = {};
  private requestBody?: { bytes: Buffer; mediaType: string };
  private responseObject?: unknown;
  private panicMessage?: string;
  private started = false;

  constructor(
    private readonly ctx: RequestContext,
    private readonly base: Omit<AuditEvent, 'level' | 'stage' | 'stageTimestamp' | 'user' | 'responseStatus'>,
    private readonly sink: AuditSink,
    private readonly policy: AuditPolicy,
  ) {}

  /** The policy's decision, made once, for the authenticated user (or none, when authentication failed). */
  decide(): RequestAuditConfig {
    if (this.config) return this.config;
    const state = this.ctx.state as Partial<RequestState>;
    const info = state.requestInfo;
    const user = state.impersonator ?? state.user;
    this.config = evaluateAuditPolicy(this.policy, {
      ...(user && { user: { name: user.name, groups: user.groups } }),
      verb: info?.verb || this.ctx.method.toLowerCase(),
      isResourceRequest: !!info?.isResourceRequest,
      path: this.ctx.path,
      namespace: info?.namespace ?? '',
      apiGroup: info?.apiGroup ?? '',
      resource: info?.resource ?? '',
      subresource: info?.subresource ?? '',
      name: info?.name ?? '',
    });
    return this.config;
  }

  private wants(level: 'Request' | 'RequestResponse'): boolean {
    return !!this.config && levelAtLeast(this.config.level, level) && !!(this.ctx.state as Partial<RequestState>).requestInfo?.isResourceRequest;
  }

  /** The request's body, kept when the level records it. */
  noteRequestBody(bytes: Buffer, mediaType: string): void {
    if (this.wants('Request')) this.requestBody = { bytes, mediaType };
  }

  /** The object written as the response, kept when the level records it. */
  noteResponseObject(object: unknown): void {
    if (this.wants('RequestResponse')) this.responseObject = object;
  }

  /** A response written as it is made: the object it amounts to is made only when the level records it. */
  noteResponseObjectMade(make: () => unknown): void {
    if (this.wants('RequestResponse')) this.responseObject = make();
  }

  /** A handler failed with an unexpected error: the Panic stage replaces ResponseComplete. */
  notePanic(error: unknown): void {
    this.panicMessage = `APIServer panic'd: ${error instanceof Error ? error.message : String(error)}`;
  }

  /** A long-running response's headers went out (a watch): the ResponseStarted stage. */
  responseStarted(): void {
    if (this.started) return;
    this.started = true;
    this.emit('ResponseStarted', { metadata: {}, code: this.ctx.res.statusCode });
  }

  requestReceived(): void {
    this.emit('RequestReceived');
  }

  /** When the response has closed: ResponseComplete, or Panic. */
  completed(): void {
    const ctx = this.ctx;
    if (this.panicMessage !== undefined) {
      this.emit('Panic', { metadata: {}, code: 500, status: 'Failure', message: this.panicMessage });
      return;
    }
    const code = ctx.res.headersSent ? ctx.res.statusCode : ctx.status;
    this.emit('ResponseComplete', { metadata: {}, code, ...statusOf(ctx.body, code) });
  }

  private emit(stage: AuditStage, responseStatus?: AuditResponseStatus): void {
    const config = this.decide();
    if (config.level === 'None' || config.omitStages.has(stage)) return;
    const state = this.ctx.state as Partial<RequestState>;
    const authenticated = state.impersonator ?? state.user;
    const withBodies = stage === 'ResponseComplete' || stage === 'Panic';
    const strip = (object: unknown): unknown => (config.omitManagedFields ? withoutManagedFields(object) : object);
    const requestObject = withBodies && this.requestBody ? decodeRequestBody(this.requestBody.bytes, this.requestBody.mediaType) : undefined;
    const { requestReceivedTimestamp, ...base } = this.base;
    const event: AuditEvent = {
      kind: base.kind,
      apiVersion: base.apiVersion,
      level: config.level,
      auditID: base.auditID,
      stage,
      requestURI: base.requestURI,
      verb: state.requestInfo?.verb || base.verb,
      user: authenticated ? auditUser(authenticated) : {},
      ...(state.impersonator && state.user && { impersonatedUser: auditUser(state.user) }),
      sourceIPs: base.sourceIPs,
      ...(base.userAgent && { userAgent: base.userAgent }),
      ...(base.objectRef && { objectRef: base.objectRef }),
      ...(responseStatus && { responseStatus }),
      ...(requestObject !== undefined && { requestObject: strip(requestObject) }),
      ...(withBodies && this.responseObject !== undefined && { responseObject: strip(this.responseObject) }),
      requestReceivedTimestamp,
      stageTimestamp: microTime(new Date()),
      ...(Object.keys(this.annotations).length > 0 && { annotations: { ...this.annotations } }),
    };
    this.sink.write(event);
  }
}

/**
 * Runs outermost (after request info): it sees the final status of everything and records the
 * response when it closes (a watch when it ends, a request cut short by the client as well).
 * Filters and handlers add annotations to ctx.state.auditAnnotations.
 */
export function auditFilter(sink: AuditSink, domain: string, policy: AuditPolicy): Middleware {
  const apiVersion = `audit.${domain}/v1`;
  return async (ctx, next) => {
    const received = new Date();
    const header = ctx.get('Audit-ID');
    // Upstream honours a client's Audit-ID (for tracing through proxies) and returns it.
    const auditID = header && header.length <= 128 ? header : randomUUID();
    ctx.set('Audit-ID', auditID);
    const info = ctx.state.requestInfo;
    const audit = new RequestAudit(
      ctx,
      {
        kind: 'Event',
        apiVersion,
        auditID,
        requestURI: ctx.originalUrl,
        verb: info?.verb || ctx.method.toLowerCase(),
        sourceIPs: sourceIPs(ctx.get('X-Forwarded-For'), ctx.get('X-Real-Ip'), ctx.req.socket.remoteAddress),
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
        requestReceivedTimestamp: microTime(received),
      },
      sink,
      policy,
    );
    ctx.state.audit = audit;
    ctx.state.auditAnnotations = audit.annotations;
    ctx.res.once('close', () => audit.completed());
    await next();
  };
}

/** Right after authentication (before impersonation, as upstream): the policy decides, and RequestReceived is recorded. */
export const auditRequestReceivedFilter: Middleware = async (ctx, next) => {
  const audit = ctx.state.audit;
  if (audit) {
    audit.decide();
    audit.requestReceived();
  }
  await next();
};
