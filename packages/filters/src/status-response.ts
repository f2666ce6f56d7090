// Writes a Status error as the response, as upstream's responsewriters do.
import type { StatusError } from '@plat/apimachinery';
import { encodeObject } from '@plat/protobuf';
import type { RequestContext } from './context.js';

export function writeStatus(ctx: RequestContext, error: StatusError): void {
  const { status } = error;
  ctx.state.audit?.noteResponseObject(status);
  ctx.status = status.code;
  const protobuf = ctx.state.protobufErrors;
  ctx.body = protobuf ? Buffer.from(encodeObject(status)) : JSON.stringify(status);
  // Set after the body: koa would otherwise default a string body to text/plain.
  ctx.set('Content-Type', protobuf ?? 'application/json');
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter) ctx.set('Retry-After', String(retryAfter));
}
