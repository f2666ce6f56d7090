// OpenID Connect ID tokens (--oidc-*), as upstream 1.28's OIDC authenticator takes them: a JWT
// whose issuer is --oidc-issuer-url, signed by a key of the issuer's JWKS (found through its
// discovery document, refetched when a token names a key not seen yet and every 10 minutes, so
// a key rotated away stops verifying), for --oidc-client-id, unexpired; the user from
// --oidc-username-claim, the groups from --oidc-groups-claim, each with its prefix, and every
// --oidc-required-claim present with its value. Keys and tokens are jose's.
import { request as httpsRequest } from 'node:https';
import { createRemoteJWKSet, customFetch, decodeJwt, errors as joseErrors, jwtVerify, type FetchImplementation, type JWTPayload } from 'jose';
import type { TokenAuthentication, TokenAuthenticator } from './authentication.js';

export interface OidcOptions {
  /** --oidc-issuer-url: https only; the `iss` of accepted tokens and the discovery document's `issuer`. */
  issuerURL: string;
  /** --oidc-client-id: an accepted token's audience. */
  clientID: string;
  /** --oidc-username-claim; default sub. */
  usernameClaim?: string;
  /** --oidc-username-prefix: '' means upstream's default (the issuer and '#' unless the claim is email), '-' none. */
  usernamePrefix?: string;
  /** --oidc-groups-claim; absent: no groups from the token. */
  groupsClaim?: string;
  groupsPrefix?: string;
  /** --oidc-ca-file's PEM: the authorities of the issuer's certificate; absent: the system's. */
  ca?: string;
  /** --oidc-required-claim: claim -> the value it must have. */
  requiredClaims?: Readonly<Record<string, string>>;
  /** --oidc-signing-algs; default RS256. */
  signingAlgs?: readonly string[];
  /** The API server's audiences (--api-audiences): ID tokens are valid for them, whatever they ask. */
  apiAudiences?: readonly string[];
}

/** GET over HTTPS with the configured CA, as jose's fetch and for discovery: node's fetch takes no CA. */
function fetchWithCA(ca: string | undefined): FetchImplementation {
  return (url, options) =>
    new Promise<Response>((resolve, reject) => {
      const headers = Object.fromEntries(options.headers.entries());
      const request = httpsRequest(url, { method: options.method, headers, ...(ca && { ca }), signal: options.signal }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: response.statusCode ?? 500 })));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end();
    });
}

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

export class OidcAuthenticator implements TokenAuthenticator {
  private readonly fetch: FetchImplementation;
  private keys?: Promise<ReturnType<typeof createRemoteJWKSet>>;

  constructor(private readonly options: OidcOptions) {
    this.fetch = fetchWithCA(options.ca);
  }

  /** The issuer's key set, from its discovery document; looked up again after a failure. */
  private keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.keys ??= this.discover().catch((error: unknown) => {
      this.keys = undefined;
      throw error;
    });
    return this.keys;
  }

  private async discover(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const issuer = this.options.issuerURL;
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const response = await this.fetch(url, { method: 'GET', headers: new Headers({ accept: 'application/json' }), signal: AbortSignal.timeout(10_000), redirect: 'manual' });
      if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
      document = (await response.json()) as typeof document;
    } catch (error) {
      throw new Error(`oidc: authenticator not initialized: fetching ${url}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // A discovery document for another issuer would let that issuer's tokens in.
    if (document.issuer !== issuer) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${issuer}" got "${String(document.issuer)}"`);
    if (typeof document.jwks_uri !== 'string') throw new Error('oidc: the discovery document has no jwks_uri');
    return createRemoteJWKSet(new URL(document.jwks_uri), { [customFetch]: this.fetch, cooldownDuration: 1000, timeoutDuration: 10_000 });
  }

  async authenticateToken(token: string, audiences: readonly string[]): Promise<TokenAuthentication | undefined> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return undefined;
    }
    // Another issuer's token (a service account's): not this authenticator's to judge.
    if (unverified.iss !== this.options.issuerURL) return undefined;
    const keys = await this.keySet();
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        issuer: this.options.issuerURL,
        audience: this.options.clientID,
        algorithms: [...(this.options.signingAlgs ?? ['RS256'])],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new Error('oidc: verify token: oidc: token is expired');
      throw new Error(`oidc: verify token: ${error instanceof Error ? error.message : String(error)}`);
    }
    const user = this.user(claims);
    const apiAudiences = this.options.apiAudiences ?? [];
    // Audience agnostic, as upstream wraps it: valid for the server's audiences.
    const valid = apiAudiences.length && audiences.length ? apiAudiences.filter((audience) => audiences.includes(audience)) : [...audiences];
    if (apiAudiences.length && audiences.length && !valid.length) throw new Error('oidc: token audiences are invalid for the target audiences');
    return { user, audiences: valid };
  }

  private user(claims: JWTPayload): TokenAuthentication['user'] {
    const { usernameClaim = 'sub', usernamePrefix = '', groupsClaim, groupsPrefix = '', requiredClaims = {} } = this.options;
    const username = claims[usernameClaim];
    if (typeof username !== 'string') throw new Error(`oidc: parse username claims "${usernameClaim}": claim not present`);
    if (usernameClaim === 'email' && claims.email_verified !== undefined && claims.email_verified !== true) {
      throw new Error(`oidc: email not verified`);
    }
    // Upstream's default: a claim other than email is prefixed with the issuer, so that names from
    // two issuers cannot clash; '-' asks for none.
    const prefix = usernamePrefix === '-' ? '' : usernamePrefix || (usernameClaim === 'email' ? '' : `${this.options.issuerURL}#`);
    let groups: string[] = [];
    if (groupsClaim && claims[groupsClaim] !== undefined) {
      const value = claims[groupsClaim];
      if (typeof value === 'string') groups = [value];
      else if (isStringArray(value)) groups = value;
      else throw new Error(`oidc: parse groups claim "${groupsClaim}": not a string or an array of strings`);
    }
    for (const [claim, want] of Object.entries(requiredClaims)) {
      if (!(claim in claims)) throw new Error(`oidc: required claim ${claim} not present in ID token`);
      if (claims[claim] !== want) throw new Error(`oidc: required claim ${claim}'s value did not match. Expected: ${want}, Got: ${String(claims[claim])}`);
    }
    return { name: `${prefix}${username}`, uid: '', groups: groups.map((group) => `${groupsPrefix}${group}`) };
  }
}
