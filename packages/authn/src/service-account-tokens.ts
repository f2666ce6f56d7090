// Service-account tokens: JWTs signed with --service-account-signing-key-file for the TokenRequest
// API, and their verification with --service-account-key-file, --service-account-issuer and the
// audience. A token stops authenticating once its account (or bound object) is deleted or
// re-created with another uid, as upstream's validator checks on every request.
import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { isStatusError, newBadRequest, newConflict, newGenericServerResponse, newNotFound } from '@plat/apimachinery';
import type { IssuedServiceAccountToken, ServiceAccountTokenRequest } from '@plat/api';
import { formatTimestamp, type KubeObject, type ResourceStore } from '@plat/registry';
import { goQuoteList, type TokenAuthentication, type TokenAuthenticator } from './authentication.js';
import { serviceAccountGroups, serviceAccountUsername } from './user.js';

export interface ServiceAccountTokenOptions {
  /** --service-account-issuer: the first is the issuer of new tokens; tokens of any of them are accepted. */
  issuers: readonly string[];
  /** --service-account-key-file: public keys that verify tokens. */
  keys: readonly KeyObject[];
  /** --service-account-signing-key-file; absent: tokens are verified but not issued. */
  signingKey?: KeyObject;
  /** The API server's own audiences (upstream's --api-audiences); default: the issuers. */
  apiAudiences?: readonly string[];
  /** --service-account-max-token-expiration in seconds: longer requests get tokens of this validity; absent: no bound. */
  maxExpirationSeconds?: number;
}

/** Upstream accepts tokens up to this long after their expiry, and objects deleted this recently. */
const LEEWAY_SECONDS = 60;

/** A Go-style error from a PEM file: which file and what was wrong. */
export class ServiceAccountKeyError extends Error {
  override readonly name = 'ServiceAccountKeyError';
}

/**
 * The public keys in a PEM file, as upstream's keyutil reads --service-account-key-file: public
 * keys, certificates (their key) and private keys (their public half), any number of each.
 */
export function parsePublicKeys(pem: string, file = 'the key file'): KeyObject[] {
  const blocks = pem.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  const keys: KeyObject[] = [];
  for (const block of blocks) {
    const type = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(block)![1]!;
    try {
      if (type === 'CERTIFICATE') keys.push(new X509Certificate(block).publicKey);
      else if (type.includes('PUBLIC KEY') || type.includes('PRIVATE KEY')) keys.push(createPublicKey(block));
    } catch (error) {
      throw new ServiceAccountKeyError(`${file}: cannot read the ${type} block: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (!keys.length) throw new ServiceAccountKeyError(`${file}: no public keys found (PEM PUBLIC KEY, CERTIFICATE or PRIVATE KEY blocks)`);
  for (const key of keys) algorithmOf(key, file);
  return keys;
}

/** The private key of --service-account-signing-key-file. */
export function parseSigningKey(pem: string, file = 'the signing key file'): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new ServiceAccountKeyError(`${file}: not a PEM private key: ${error instanceof Error ? error.message : String(error)}`);
  }
  algorithmOf(key, file);
  return key;
}

/** The JWS algorithm of a key, as upstream signs: RS256 for RSA, ES256/384/512 by EC curve. */
export function algorithmOf(key: KeyObject, file = 'key'): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1' || curve === 'P-256') return 'ES256';
    if (curve === 'secp384r1' || curve === 'P-384') return 'ES384';
    if (curve === 'secp521r1' || curve === 'P-521') return 'ES512';
    throw new ServiceAccountKeyError(`${file}: unsupported elliptic curve ${curve ?? 'unknown'}`);
  }
  throw new ServiceAccountKeyError(`${file}: unsupported key type ${key.asymmetricKeyType ?? 'unknown'} (RSA or EC)`);
}

/** Upstream's key id: the unpadded base64url SHA-256 of the public key's DER (PKIX) form. */
export function keyId(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

interface ObjectRefClaim {
  name: string;
  uid: string;
}

interface PrivateClaims {
  namespace?: string;
  serviceaccount?: ObjectRefClaim;
  pod?: ObjectRefClaim;
  secret?: ObjectRefClaim;
}

/** The kinds a token may be bound to (upstream 1.28), and where they are served. */
const BINDABLE: Record<string, { resource: string; claim: 'pod' | 'secret' }> = {
  Pod: { resource: 'pods', claim: 'pod' },
  Secret: { resource: 'secrets', claim: 'secret' },
};

const audiencesOf = (aud: JWTPayload['aud']): string[] => (aud === undefined ? [] : Array.isArray(aud) ? aud : [aud]);

/** Where service accounts, secrets and pods are read: the server's catalog of served resources is one. */
export interface ServedStores {
  find(group: string, version: string, resource: string): { readonly store: ResourceStore } | undefined;
}

export class ServiceAccountTokens implements TokenAuthenticator {
  readonly apiAudiences: readonly string[];
  /** The private claims' key: "kubernetes.io" under k8s.io, else the API domain. */
  private readonly claim: string;
  private readonly verifiers: { key: KeyObject; kid: string; algorithm: string }[];

  constructor(
    private readonly options: ServiceAccountTokenOptions,
    private readonly catalog: ServedStores,
    domain: string,
  ) {
    this.apiAudiences = options.apiAudiences?.length ? options.apiAudiences : options.issuers;
    this.claim = domain === 'k8s.io' ? 'kubernetes.io' : domain;
    // A private key verifies through its public half.
    this.verifiers = options.keys
      .map((key) => (key.type === 'private' ? createPublicKey(key) : key))
      .map((key) => ({ key, kid: keyId(key), algorithm: algorithmOf(key) }));
  }

  get canIssue(): boolean {
    return ServiceAccountTokens.issues(this.options);
  }

  /** Whether a server with these options issues tokens (a signing key and an issuer): it then serves serviceaccounts/token. */
  static issues(options: ServiceAccountTokenOptions): boolean {
    return !!options.signingKey && options.issuers.length > 0;
  }

  private async getObject(resource: string, namespace: string, name: string): Promise<KubeObject> {
    const served = this.catalog.find('', 'v1', resource);
    // A kind this server does not serve has no objects: what upstream answers for a missing one.
    if (!served) throw newNotFound({ group: '', resource }, name);
    return served.store.get(namespace, name);
  }

  /** The TokenRequest API: a token for the account, checked to exist, and for the bound object. */
  async issue(request: ServiceAccountTokenRequest): Promise<IssuedServiceAccountToken> {
    const signingKey = this.options.signingKey;
    // Without a signing key upstream does not serve the subresource at all.
    if (!signingKey || !this.canIssue) throw newGenericServerResponse(404);
    const { namespace, name } = request;
    const account = await this.getObject('serviceaccounts', namespace, name);
    const audiences = request.audiences.length ? [...request.audiences] : [...this.apiAudiences];
    const claims: PrivateClaims = { namespace, serviceaccount: { name, uid: account.metadata.uid ?? '' } };
    const ref = request.boundObjectRef;
    if (ref) {
      const bindable = (ref.apiVersion ?? 'v1') === 'v1' ? BINDABLE[ref.kind ?? ''] : undefined;
      if (!bindable) {
        const gvk = `${ref.apiVersion ?? ''}, Kind=${ref.kind ?? ''}`;
        throw newBadRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to object of type ${gvk}`);
      }
      const object = await this.getObject(bindable.resource, namespace, ref.name ?? '');
      const uid = object.metadata.uid ?? '';
      if (ref.uid && ref.uid !== uid) {
        throw newConflict(
          { group: '', resource: ref.kind ?? '' },
          ref.name ?? '',
          new Error(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`),
        );
      }
      claims[bindable.claim] = { name: ref.name ?? '', uid };
    }
    const now = new Date();
    const issuedAt = Math.floor(now.getTime() / 1000);
    // Upstream issues a token asked for longer than the maximum with the maximum's validity.
    const max = this.options.maxExpirationSeconds;
    const expiry = issuedAt + (max && request.expirationSeconds > max ? max : request.expirationSeconds);
    const token = await new SignJWT({ [this.claim]: claims })
      .setProtectedHeader({ alg: algorithmOf(signingKey), kid: keyId(signingKey) })
      .setIssuer(this.options.issuers[0]!)
      .setSubject(serviceAccountUsername(namespace, name))
      .setAudience(audiences)
      .setIssuedAt(issuedAt)
      .setNotBefore(issuedAt)
      .setExpirationTime(expiry)
      .sign(signingKey);
    return { token, audiences, issuedAt: formatTimestamp(now), expirationTimestamp: formatTimestamp(new Date(expiry * 1000)) };
  }

  /**
   * Upstream's jwtTokenAuthenticator: undefined for a token that is not a JWT of one of our
   * issuers; an error for one that is but does not verify, has expired, is not for the audiences,
   * or whose account or bound object is gone.
   */
  async authenticateToken(token: string, audiences: readonly string[]): Promise<TokenAuthentication | undefined> {
    let payload: JWTPayload;
    let kid: string | undefined;
    try {
      payload = decodeJwt(token);
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return undefined;
    }
    if (typeof payload.iss !== 'string' || !this.options.issuers.includes(payload.iss)) return undefined;
    const verified = await this.verify(token, kid);
    const tokenAudiences = audiencesOf(verified.aud);
    const requested = audiences.length ? audiences : this.apiAudiences;
    const valid = tokenAudiences.filter((aud) => requested.includes(aud));
    if (!valid.length && this.apiAudiences.length) {
      throw new Error(`token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(requested)}`);
    }
    const claims = (verified[this.claim] ?? {}) as PrivateClaims;
    const namespace = claims.namespace ?? '';
    const account = claims.serviceaccount;
    if (!namespace || !account?.name) throw new Error('service account token claims could not be validated due to unexpected validation error');
    const found = await this.lookup('serviceaccounts', namespace, account.name);
    this.checkLive(found, `service account ${namespace}/${account.name}`);
    if (found.metadata.uid !== account.uid) throw new Error(`service account UID (${found.metadata.uid ?? ''}) does not match claim (${account.uid})`);
    for (const [kind, { resource, claim }] of Object.entries(BINDABLE)) {
      const ref = claims[claim];
      if (!ref) continue;
      const object = await this.lookup(resource, namespace, ref.name);
      this.checkLive(object, `${kind.toLowerCase()} ${namespace}/${ref.name}`);
      if (object.metadata.uid !== ref.uid) throw new Error(`${kind} UID (${object.metadata.uid ?? ''}) does not match claim (${ref.uid})`);
    }
    const extra: Record<string, string[]> = {};
    const prefix = this.claim === 'kubernetes.io' ? 'authentication.kubernetes.io' : `authentication.${this.claim}`;
    if (claims.pod) {
      extra[`${prefix}/pod-name`] = [claims.pod.name];
      extra[`${prefix}/pod-uid`] = [claims.pod.uid];
    }
    return {
      user: {
        name: serviceAccountUsername(namespace, account.name),
        uid: account.uid,
        groups: serviceAccountGroups(namespace),
        ...(Object.keys(extra).length && { extra }),
      },
      audiences: valid,
    };
  }

  private async verify(token: string, kid: string | undefined): Promise<JWTPayload> {
    // Keys with the token's key id first; upstream tries every key.
    const ordered = [...this.verifiers].sort((a, b) => Number(b.kid === kid) - Number(a.kid === kid));
    const problems: string[] = [];
    for (const { key, algorithm } of ordered) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: [algorithm], clockTolerance: LEEWAY_SECONDS });
        return payload;
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw new Error('service account token has expired');
        if (error instanceof joseErrors.JWTClaimValidationFailed) {
          throw new Error('service account token claims could not be validated due to unexpected validation error');
        }
        problems.push(error instanceof Error ? error.message : String(error));
      }
    }
    throw new Error(problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
  }

  private async lookup(resource: string, namespace: string, name: string): Promise<KubeObject> {
    try {
      return await this.getObject(resource, namespace, name);
    } catch (error) {
      // The lister's NotFound, as upstream reports it: `serviceaccounts "x" not found`.
      if (isStatusError(error)) throw new Error(error.message);
      throw error;
    }
  }

  /** Deleted longer ago than the leeway: the token is no longer good. */
  private checkLive(object: KubeObject, what: string): void {
    const deleted = object.metadata.deletionTimestamp;
    if (deleted && Date.parse(deleted) < Date.now() - LEEWAY_SECONDS * 1000) throw new Error(`${what} has been deleted`);
  }
}
