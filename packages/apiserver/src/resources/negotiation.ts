// Content negotiation on the Accept header (conventions 4.4): the first acceptable media type in
// the client's order, skipping those we do not serve (Table and Protobuf have their own issue).
import { newNotAcceptable } from '@plat/apimachinery';

export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || !header.trim()) return [{ type: '*/*', params: {} }];
  return header.split(',').map((part) => {
    const [type = '', ...rest] = part.split(';').map((piece) => piece.trim());
    const params: Record<string, string> = {};
    for (const param of rest) {
      const [key, value = ''] = param.split('=');
      if (key) params[key.trim().toLowerCase()] = value.trim().replace(/^"|"$/g, '');
    }
    return { type: type.toLowerCase(), params };
  });
}

const JSON_TYPES = new Set(['application/json', 'application/*', '*/*']);

/** Succeeds when the client accepts plain JSON objects; 406 otherwise. */
export function negotiateJson(header: string | undefined, served: readonly string[] = ['application/json']): void {
  const acceptable = parseAccept(header).some((range) => JSON_TYPES.has(range.type) && range.params.as === undefined);
  if (!acceptable) throw newNotAcceptable([...served]);
}
