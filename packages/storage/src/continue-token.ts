// Continue tokens: the revision a paged list is read at and the key to resume from, relative to
// the list's prefix so that a token cannot reach outside the collection it was issued for. A
// negative revision (LATEST_REVISION) resumes at the latest revision, as upstream's do: that is the
// token offered when the first chunk's revision has been compacted.
import { StorageError } from './errors.js';
import { keyEnd } from './kv.js';

interface TokenBody {
  v: string;
  rv: number;
  start: string;
}

const TOKEN_VERSION = 'meta.plat.io/v1';

/** A token's revision meaning "the latest" (upstream's -1; 0 is invalid, as there). */
export const LATEST_REVISION = -1;

export function encodeContinue(revision: number, nextKey: string, prefix: string): string {
  const body: TokenBody = { v: TOKEN_VERSION, rv: revision, start: nextKey.slice(prefix.length) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

const invalid = (detail: string): StorageError =>
  new StorageError('InvalidArgument', `invalid continue token: continue key is not valid: ${detail}`);

/** `revision` 0 in the result: read at the latest revision (the token's was negative). */
export function decodeContinue(token: string, prefix: string): { revision: number; startKey: string } {
  let body: Partial<TokenBody>;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString()) as Partial<TokenBody>;
  } catch {
    throw invalid('the token is not valid base64url-encoded JSON');
  }
  if (body === null || typeof body !== 'object' || body.v !== TOKEN_VERSION) {
    throw invalid('server does not recognize this encoded version');
  }
  if (typeof body.rv !== 'number' || !Number.isSafeInteger(body.rv) || body.rv === 0) {
    throw invalid('incorrect encoded start resourceVersion (version meta.plat.io/v1)');
  }
  if (typeof body.start !== 'string' || body.start === '') {
    throw invalid('encoded start key is empty');
  }
  // The start key is a path below the prefix; refuse anything that would climb out of it.
  if (body.start.split('/').some((segment) => segment === '..' || segment === '.')) {
    throw invalid('encoded start key is not a relative key');
  }
  return { revision: Math.max(body.rv, 0), startKey: prefix + body.start };
}

/**
 * The token that continues a list of `prefix` read at `revision` after `key` (a key below the prefix,
 * as ListResult.keys give them), in the form the stores issue. For a list whose items are chosen
 * above the storage (the registry's, judging objects after converting them), which ends its page at
 * an item of its own choosing.
 */
export function continueAfter(prefix: string, revision: number, key: string): string {
  return encodeContinue(revision, keyEnd(key), prefix);
}

/**
 * What a continued list whose revision is compacted offers instead of `token`: the same start, at the
 * latest revision (see goneContinuing). For a list that read on past the token with tokens of its own.
 */
export function continueAtLatest(token: string, prefix: string): string {
  return encodeContinue(LATEST_REVISION, decodeContinue(token, prefix).startKey, prefix);
}
