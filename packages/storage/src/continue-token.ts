// Continue tokens: the revision a paged list is read at and the key to resume from, relative to
// the list's prefix so that a token cannot reach outside the collection it was issued for. A
// negative revision (LATEST_REVISION) resumes at the latest revision, as upstream's do: that is the
// token offered when the first chunk's revision has been compacted.
import { StorageError } from './errors.js';

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
