// API errors: the Status object and the one error class that carries it, built only by constructors.
import { goQuote } from './go-format.js';
import { aggregateMessage, type FieldError } from './field-errors.js';

export type StatusReason =
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable'
  | 'NotImplemented';

export interface StatusCause {
  /** Upstream's CauseType, serialized as "reason" (FieldValueRequired, ...). */
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  /** The resource (NotFound, Conflict, ...) or kind (Invalid) the error concerns. */
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  /** Its ListMeta: `continue` on a 410 for an expired continue token, a token to resume with. */
  metadata: { continue?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

export interface GroupResource {
  group: string;
  resource: string;
}

export interface GroupKind {
  group: string;
  kind: string;
}

/** An error that is answered to the client as the Status it carries. */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  constructor(
    readonly status: Status,
    options?: { cause?: unknown },
  ) {
    super(status.message ?? '', options);
  }

  /** The HTTP status code of the response. */
  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

export function isStatusError(error: unknown, reason?: StatusReason): error is StatusError {
  return error instanceof StatusError && (reason === undefined || error.status.reason === reason);
}

/** `roles.rbac.authorization.plat.io`, or `namespaces` for the core group (schema.GroupResource.String). */
function groupResourceString({ group, resource }: GroupResource): string {
  return group ? `${resource}.${group}` : resource;
}

function groupKindString({ group, kind }: GroupKind): string {
  return group ? `${kind}.${group}` : kind;
}

// Go omits empty fields (omitempty); so do we, in upstream's field order, so bodies compare equal.
function compactDetails(details: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (details.name) out.name = details.name;
  if (details.group) out.group = details.group;
  if (details.kind) out.kind = details.kind;
  if (details.uid) out.uid = details.uid;
  if (details.causes?.length) {
    out.causes = details.causes.map((cause) => {
      const c: StatusCause = {};
      if (cause.reason) c.reason = cause.reason;
      if (cause.message) c.message = cause.message;
      if (cause.field) c.field = cause.field;
      return c;
    });
  }
  if (details.retryAfterSeconds) out.retryAfterSeconds = details.retryAfterSeconds;
  return out;
}

function failure(code: number, reason: StatusReason | undefined, message: string, details?: StatusDetails, cause?: unknown): StatusError {
  // Built in upstream's field order (code last), omitting what Go's omitempty would omit.
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    ...(message ? { message } : {}),
    ...(reason ? { reason } : {}),
    ...(details ? { details: compactDetails(details) } : {}),
    code,
  } satisfies Status;
  return new StatusError(status, cause === undefined ? undefined : { cause });
}

const resourceDetails = (qr: GroupResource, name = ''): StatusDetails => ({ name, group: qr.group, kind: qr.resource });

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function newNotFound(qr: GroupResource, name: string): StatusError {
  return failure(404, 'NotFound', `${groupResourceString(qr)} ${goQuote(name)} not found`, resourceDetails(qr, name));
}

export function newAlreadyExists(qr: GroupResource, name: string): StatusError {
  return failure(409, 'AlreadyExists', `${groupResourceString(qr)} ${goQuote(name)} already exists`, resourceDetails(qr, name));
}

export function newConflict(qr: GroupResource, name: string, err: unknown): StatusError {
  const message = `Operation cannot be fulfilled on ${groupResourceString(qr)} ${goQuote(name)}: ${errorMessage(err)}`;
  return failure(409, 'Conflict', message, resourceDetails(qr, name), err);
}

export function newBadRequest(message: string): StatusError {
  return failure(400, 'BadRequest', message);
}

export function newUnauthorized(message: string): StatusError {
  return failure(401, 'Unauthorized', message || 'not authorized');
}

export function newForbidden(qr: GroupResource, name: string, err: unknown): StatusError {
  let message: string;
  if (!qr.group && !qr.resource) message = `forbidden: ${errorMessage(err)}`;
  else if (!name) message = `${groupResourceString(qr)} is forbidden: ${errorMessage(err)}`;
  else message = `${groupResourceString(qr)} ${goQuote(name)} is forbidden: ${errorMessage(err)}`;
  return failure(403, 'Forbidden', message, resourceDetails(qr, name), err);
}

export function newMethodNotSupported(qr: GroupResource, action: string): StatusError {
  const message = `${action} is not supported on resources of kind ${goQuote(groupResourceString(qr))}`;
  return failure(405, 'MethodNotAllowed', message, resourceDetails(qr));
}

/**
 * 501 for a path upstream serves and this server does not (a Service's proxy: no network path to
 * backends here). Upstream has no such answer, so no reason of its own: the message says it.
 */
export function newNotImplemented(qr: GroupResource, name: string, message: string): StatusError {
  return failure(501, undefined, message, resourceDetails(qr, name));
}

/** 406, as the negotiation layer answers when no offered media type is acceptable. */
export function newNotAcceptable(accepted: string[]): StatusError {
  return failure(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

/** 415, for a request body in a media type the resource does not decode. */
export function newUnsupportedMediaType(accepted: string[]): StatusError {
  const message = `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`;
  return failure(415, 'UnsupportedMediaType', message);
}

/** 410 Gone. Upstream deprecates it in favour of newResourceExpired for expired resourceVersions. */
export function newGone(message: string): StatusError {
  return failure(410, 'Gone', message);
}

export function newResourceExpired(message: string): StatusError {
  return failure(410, 'Expired', message);
}

export function newInvalid(qk: GroupKind, name: string, fieldErrors: readonly FieldError[]): StatusError {
  const causes = fieldErrors.map((e) => ({ reason: e.type, message: e.body(), field: e.field }));
  const aggregate = aggregateMessage(fieldErrors);
  const message = `${groupKindString(qk)} ${goQuote(name)} is invalid${aggregate ? `: ${aggregate}` : ''}`;
  return failure(422, 'Invalid', message, { name, group: qk.group, kind: qk.kind, causes });
}

/** 504: the request could not finish in time; it may still complete. */
export function newTimeout(message: string, retryAfterSeconds: number): StatusError {
  return failure(504, 'Timeout', `Timeout: ${message}`, { retryAfterSeconds });
}

/** 500 ServerTimeout: a transient failure of `operation` on a resource; the client should retry. */
export function newServerTimeout(qr: GroupResource, operation: string, retryAfterSeconds: number): StatusError {
  const message = `The ${operation} operation against ${groupResourceString(qr)} could not be completed at this time, please try again.`;
  return failure(500, 'ServerTimeout', message, { ...resourceDetails(qr, operation), retryAfterSeconds });
}

export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return failure(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function newRequestEntityTooLarge(message: string): StatusError {
  return failure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}

/** A 500: every use of this is a bug to fix, so callers log it with its stack. */
export function newInternalError(err: unknown): StatusError {
  const message = errorMessage(err);
  return failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }, err);
}

export function newServiceUnavailable(message: string): StatusError {
  return failure(503, 'ServiceUnavailable', message);
}

const genericMessages: Record<number, [StatusReason, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: [
    'Timeout',
    'the server was unable to return a response in the time allotted, but may still be processing the request',
  ],
};

/**
 * A Status for a bare HTTP code, with upstream's stock message: what kube-apiserver answers for a
 * path it does not serve (404 "the server could not find the requested resource", details {}).
 * `causes` are ours: upstream's 422 for a JSON patch that does not apply has none, which leaves a
 * client no clue which operation failed; a cause names it without changing code, reason or message.
 */
export function newGenericServerResponse(code: number, causes?: StatusCause[]): StatusError {
  const [reason, message] = genericMessages[code] ?? [
    code >= 500 ? 'InternalError' : undefined,
    `the server responded with the status code ${code} but did not return more information`,
  ];
  return failure(code, reason, message, causes?.length ? { causes } : {});
}
