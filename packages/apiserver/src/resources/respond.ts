// Writing API objects: JSON, indented when ?pretty asks for it, as upstream's serializer.
import type { RequestContext } from '../context.js';

export function writeObject(ctx: RequestContext, code: number, object: unknown): void {
  const pretty = ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(ctx.query.pretty as string);
  ctx.status = code;
  ctx.body = pretty ? `${JSON.stringify(object, null, 2)}\n` : JSON.stringify(object);
  ctx.set('Content-Type', 'application/json');
}

/** One `Warning: 299 - "..."` header per message (RFC 7234 5.5, as upstream's warning recorder). */
export function addWarnings(ctx: RequestContext, messages: readonly string[]): void {
  for (const message of messages) ctx.append('Warning', `299 - ${JSON.stringify(message)}`);
}
