// The exec plugin's answer, CredentialProviderResponse: read strictly from stdout, in the version the agent asked in.
import { FieldError } from '@plat/apimachinery';
import { t, type Infer } from '../decode/schema.js';
import { decodeDocument, parseText } from '../decode/strict-decode.js';
import { SyntaxProblem } from '../decode/problems.js';
import { RESPONSE_KIND } from './api-versions.js';

export const CACHE_KEY_TYPES = ['Image', 'Registry', 'Global'] as const;
export type CacheKeyType = (typeof CACHE_KEY_TYPES)[number];

const authConfig = t.object({ username: t.string(), password: t.string() });
const responseSchema = t.object({
  apiVersion: t.string(),
  kind: t.string(),
  cacheKeyType: t.string(),
  cacheDuration: t.duration(),
  auth: t.map(authConfig),
});

export type AuthConfig = Infer<typeof authConfig>;
/** Credentials by the registry pattern they apply to (`registry.io`, `*.registry.io/team`). */
export type AuthMap = Record<string, AuthConfig>;

export interface CredentialProviderResponse {
  cacheKeyType: CacheKeyType;
  /** Undefined when the plugin leaves it to the provider's defaultCacheDuration. */
  cacheDurationMs: number | undefined;
  auth: AuthMap;
}

/**
 * Decodes the plugin's stdout; throws an Error naming what is wrong. Messages never quote the output's
 * values, since they may hold credentials.
 */
export function decodeCredentialProviderResponse(stdout: string, apiVersion: string): CredentialProviderResponse {
  if (!stdout.trim()) throw new Error('the plugin wrote no response on stdout');
  const parsed = parseText(stdout);
  if (parsed instanceof SyntaxProblem) throw new Error('the response on stdout is not a JSON object');
  const actual = parsed.topLevel.get('apiVersion');
  if (actual !== apiVersion) {
    throw new Error(`apiVersion from credential plugin response did not match expected apiVersion:${apiVersion}, actual apiVersion:${String(actual ?? '')}`);
  }
  const kind = parsed.topLevel.get('kind');
  if (kind !== RESPONSE_KIND) throw new Error(`the response's kind is ${JSON.stringify(kind ?? '')}, expected ${RESPONSE_KIND}`);
  const { value: decoded, problems } = decodeDocument(parsed, responseSchema);
  const value = decoded as Infer<typeof responseSchema>;
  if (problems.length) {
    const described = problems.map((problem) => (problem instanceof FieldError ? `${problem.field}: invalid value` : String(problem)));
    throw new Error(`error decoding the response: ${described.join(', ')}`);
  }
  const cacheKeyType = value.cacheKeyType ?? '';
  if (!(CACHE_KEY_TYPES as readonly string[]).includes(cacheKeyType)) {
    throw new Error(`the response did not give a valid cacheKeyType: ${JSON.stringify(cacheKeyType)} (must be Image, Registry or Global)`);
  }
  return { cacheKeyType: cacheKeyType as CacheKeyType, cacheDurationMs: value.cacheDuration, auth: value.auth ?? {} };
}
