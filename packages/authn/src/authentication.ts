// Authentication, as upstream's chain: a client certificate signed by --client-ca-file, else a
// bearer token (the token file, then service-account JWTs), else anonymous. Credentials that are
// given but invalid fail the request (401) even with anonymous access on: a client that sends them
// wants them checked, not ignored. Runs for every path, health checks included.
import type { PeerCertificate } from 'node:tls';
import { goQuote, newUnauthorized } from '@plat/apimachinery';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, anonymousUser, type UserInfo } from './user.js';

export interface TokenAuthentication {
  user: UserInfo;
  /** The audiences, among those asked for, the token is valid for. */
  audiences: string[];
}

/** A kind of bearer token (service-account JWTs). */
export interface TokenAuthenticator {
  /**
   * Undefined when the token is not of this kind; throws an Error saying why when it is but does not
   * authenticate (expired, account deleted, wrong audience).
   */
  authenticateToken(token: string, audiences: readonly string[]): Promise<TokenAuthentication | undefined>;
}

export interface AuthenticationOptions {
  /** Bearer token -> user, as loaded from --token-auth-file. */
  tokens?: ReadonlyMap<string, UserInfo>;
  /** Treat requests without credentials as system:anonymous (default true), else answer 401. */
  anonymous?: boolean;
  /** PEM of the CAs that sign client certificates (--client-ca-file); absent: certificates are not asked for. */
  clientCA?: string;
  /** Bearer tokens beyond the token file's, tried in order (service-account tokens). */
  tokenAuthenticators?: readonly TokenAuthenticator[];
  /** The audiences a token must be valid for to reach this server (upstream's --api-audiences); empty: any. */
  apiAudiences?: readonly string[];
}

/** What a request presents: its Authorization header and, on TLS, its connection. */
export interface Credentials {
  authorization?: string | undefined;
  connection?: TlsPeer | undefined;
}

/** The part of a TLSSocket that client-certificate authentication reads. */
export interface TlsPeer {
  authorized?: boolean;
  authorizationError?: Error | string | null;
  getPeerCertificate?(detailed?: boolean): PeerCertificate | Record<string, never>;
}

/** The bearer token of an Authorization header, or undefined when it carries none (upstream's rules). */
function bearerToken(header: string | undefined): string | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const parts = value.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

/** Adds system:authenticated unless the user already has it or is unauthenticated (upstream's group adder). */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

const values = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/**
 * Upstream's x509 authenticator: no certificate, no opinion; one that does not verify against the
 * client CA is an error; otherwise CommonName is the user (none: no opinion) and each Organization
 * a group. Node has verified the chain against the CA (`ca` in the TLS options) without refusing
 * the handshake; here its verdict is read.
 */
export function certificateUser(connection: TlsPeer | undefined): { user?: UserInfo; error?: string } {
  const certificate = connection?.getPeerCertificate?.();
  if (!certificate || !('subject' in certificate) || !certificate.subject) return {};
  if (!connection?.authorized) {
    const reason = connection?.authorizationError instanceof Error ? connection.authorizationError.message : String(connection?.authorizationError ?? 'unknown authority');
    const subject = values(certificate.subject.CN as string | string[] | undefined)[0] ?? '';
    return { error: `verifying certificate SN=${certificate.serialNumber ?? ''}, CN=${subject} failed: x509: ${reason}` };
  }
  const name = values(certificate.subject.CN as string | string[] | undefined)[0];
  if (!name) return {};
  return { user: { name, uid: '', groups: values(certificate.subject.O as string | string[] | undefined) } };
}

const intersect = (a: readonly string[], b: readonly string[]): string[] => a.filter((value) => b.includes(value));

/**
 * The chain of bearer-token authenticators, as a TokenReview asks it: the token file (audience
 * agnostic: valid for the API server's audiences), then each token authenticator. Resolves with
 * the user, or with why the token does not authenticate.
 */
export async function authenticateToken(
  token: string,
  options: AuthenticationOptions,
  requestedAudiences: readonly string[] = [],
): Promise<TokenAuthentication | { error: string }> {
  const apiAudiences = options.apiAudiences ?? [];
  const audiences = requestedAudiences.length ? requestedAudiences : apiAudiences;
  const known = options.tokens?.get(token);
  if (known) {
    const valid = apiAudiences.length && requestedAudiences.length ? intersect(apiAudiences, requestedAudiences) : [...audiences];
    if (!apiAudiences.length || !requestedAudiences.length || valid.length) {
      return { user: withAuthenticatedGroup(known), audiences: valid };
    }
  }
  const errors: string[] = [];
  for (const authenticator of options.tokenAuthenticators ?? []) {
    try {
      const result = await authenticator.authenticateToken(token, audiences);
      if (result) return { user: withAuthenticatedGroup(result.user), audiences: result.audiences };
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (!errors.length) return { error: 'invalid bearer token' };
  return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
}

/**
 * Returns the user of a request, or undefined when nothing authenticates it and anonymous access is
 * off. Throws 401 when credentials are given but none authenticates.
 */
export async function authenticate(credentials: Credentials, options: AuthenticationOptions): Promise<UserInfo | undefined> {
  let failed = false;
  if (options.clientCA) {
    const { user, error } = certificateUser(credentials.connection);
    if (user) return withAuthenticatedGroup(user);
    if (error) failed = true;
  }
  const token = bearerToken(credentials.authorization);
  if (token !== undefined) {
    const result = await authenticateToken(token, options);
    if ('user' in result) return result.user;
    failed = true;
  }
  if (failed) throw newUnauthorized('Unauthorized');
  return options.anonymous === false ? undefined : anonymousUser();
}

/** `["a" "b"]`: a Go string slice printed with %q, as upstream's messages show audiences. */
export const goQuoteList = (list: readonly string[]): string => `[${list.map(goQuote).join(' ')}]`;
