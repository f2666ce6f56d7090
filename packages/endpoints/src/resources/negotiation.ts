// Content negotiation on the Accept header (conventions 4.4): media ranges are tried in the
// client's order (by q, then as listed) and the first one this endpoint can produce wins; none: 406.
import { newNotAcceptable } from '@plat/apimachinery';

export interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || !header.trim()) return [{ type: '*/*', params: {}, q: 1 }];
  const ranges = header.split(',').map((part) => {
    const [type = '', ...rest] = part.split(';').map((piece) => piece.trim());
    const params: Record<string, string> = {};
    for (const param of rest) {
      const [key, value = ''] = param.split('=');
      if (key) params[key.trim().toLowerCase()] = value.trim().replace(/^"|"$/g, '');
    }
    const q = params.q === undefined ? 1 : Number(params.q);
    delete params.q;
    return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
  });
  // Stable: equal q keeps the client's order.
  return ranges.filter((range) => range.q > 0).sort((a, b) => b.q - a.q);
}

export type Representation =
  | { type: 'json' }
  | { type: 'yaml' }
  | { type: 'protobuf'; mediaType: string }
  | { type: 'table'; version: string }
  | { type: 'partial'; version: string };

export interface Offers {
  /** meta.<domain>: the group of Table and PartialObjectMetadata. */
  metaGroup: string;
  /** The Protobuf media type when the resource has a Protobuf form. */
  protobuf?: string;
  /** get, list and watch may be asked for Tables and metadata-only objects. */
  transforms: boolean;
  /** PartialObjectMetadata for one object, PartialObjectMetadataList for a collection. */
  partialKind: 'PartialObjectMetadata' | 'PartialObjectMetadataList';
}

const TABLE_VERSIONS = ['v1', 'v1beta1'];

function choose(range: MediaRange, offers: Offers): Representation | undefined {
  const { as, g, v } = range.params;
  if (range.type === '*/*' || range.type === 'application/*') return as === undefined ? { type: 'json' } : undefined;
  if (range.type === 'application/yaml' && as === undefined) return { type: 'yaml' };
  if (offers.protobuf && range.type === offers.protobuf && as === undefined) return { type: 'protobuf', mediaType: offers.protobuf };
  if (range.type !== 'application/json') return undefined;
  if (as === undefined) return { type: 'json' };
  if (!offers.transforms || g !== offers.metaGroup || !v || !TABLE_VERSIONS.includes(v)) return undefined;
  if (as === 'Table') return { type: 'table', version: v };
  if (as === offers.partialKind) return { type: 'partial', version: v };
  return undefined;
}

export function negotiate(header: string | undefined, offers: Offers): Representation {
  for (const range of parseAccept(header)) {
    const chosen = choose(range, offers);
    if (chosen) return chosen;
  }
  throw newNotAcceptable(['application/json', 'application/yaml', ...(offers.protobuf ? [offers.protobuf] : [])]);
}
