// TokenRequest (authentication.{domain}/v1, the `token` subresource of a ServiceAccount, create only,
// never stored): a signed, expiring token for the account, optionally bound to an object.
import { MAX_HEADER_BYTES, forbidden, invalid, newInvalid, newPath, type FieldError } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicStringList, integerField, objectSchema, stringField, timeField } from '../common/schema.js';

export interface BoundObjectReference {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

export interface TokenRequest extends KubeObject {
  spec: { audiences?: string[]; expirationSeconds?: number; boundObjectRef?: BoundObjectReference };
  status?: { token: string; expirationTimestamp: string };
}

/** Upstream's bounds on a token's lifetime, and its default. */
const MIN_TOKEN_EXPIRATION_SECONDS = 10 * 60;
const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;
const DEFAULT_TOKEN_EXPIRATION_SECONDS = 60 * 60;

/**
 * The longest token issued. Upstream bounds neither the audiences nor the token (1.28's
 * ValidateTokenRequest checks only expirationSeconds), so there a long audience list gets a token
 * no request can carry. A token is sent as `Authorization: Bearer <token>` in a header section of
 * at most MAX_HEADER_BYTES (Go's default: kube-apiserver's and this server's), which must also
 * hold the request line and the client's other headers: 4 KiB is kept for them.
 */
export const MAX_TOKEN_BYTES = MAX_HEADER_BYTES - 'Authorization: Bearer \r\n'.length - 4096;

function validateTokenRequest(request: TokenRequest): FieldError[] {
  const errors: FieldError[] = [];
  const path = newPath('spec', 'expirationSeconds');
  const seconds = request.spec?.expirationSeconds ?? 0;
  if (seconds < MIN_TOKEN_EXPIRATION_SECONDS) errors.push(invalid(path, seconds, 'may not specify a duration less than 10 minutes'));
  if (seconds > MAX_TOKEN_EXPIRATION_SECONDS) errors.push(invalid(path, seconds, 'may not specify a duration larger than 2^32 seconds'));
  return errors;
}

/** A service-account token to issue (the TokenRequest API). */
export interface ServiceAccountTokenRequest {
  namespace: string;
  /** The service account. */
  name: string;
  /** Empty: the API server's own audiences. */
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef?: BoundObjectReference;
}

export interface IssuedServiceAccountToken {
  token: string;
  /** RFC 3339. */
  expirationTimestamp: string;
  /** The audiences the token was issued for (the request's, or the API server's when it named none). */
  audiences: string[];
  /** When the token was issued, RFC 3339. */
  issuedAt: string;
}

/**
 * The server's service-account token issuer, as the kind's factory is given it. A server that
 * issues no tokens (no signing key or issuer) wires no TokenRequest: upstream then neither lists
 * nor serves serviceaccounts/token.
 */
export interface TokenIssuer {
  /** Signs a token for a service account; throws a StatusError (404 account, 400 bad binding, 409 stale uid). */
  issue(request: ServiceAccountTokenRequest): Promise<IssuedServiceAccountToken>;
}

export const tokenRequestDefinition = (issuer: TokenIssuer) => ({
  group: 'authentication.{domain}',
  version: 'v1',
  kind: 'TokenRequest',
  resource: 'tokenrequests',
  singularName: 'tokenrequest',
  namespaced: true,
  verbs: ['create'],
  schema: kindSchema(
    'Requests a token for a given service account.',
    {
      spec: objectSchema(
        'The parameters of the requested token.',
        {
          audiences: atomicStringList(
            'The intended audiences of the token; a recipient must identify itself with one of them. Empty: the API server\u2019s audiences.',
          ),
          expirationSeconds: integerField('The requested lifetime of the token, at least 10 minutes; default one hour.', 'int64'),
          boundObjectRef: objectSchema(
            'An object the token is bound to: the token is invalid once the object is deleted.',
            {
              kind: stringField('Kind of the referent: Pod or Secret.'),
              apiVersion: stringField('API version of the referent.'),
              name: stringField('Name of the referent.'),
              uid: stringField('UID of the referent.'),
            },
            { mapType: 'atomic' },
          ),
        },
        { required: ['audiences'] },
      ),
      status: objectSchema(
        'The result of the request.',
        {
          token: stringField('The opaque bearer token.'),
          expirationTimestamp: timeField('When the token expires.'),
        },
        { required: ['token', 'expirationTimestamp'] },
      ),
    },
    ['spec'],
  ),
  strategy: {
    prepareForCreate(request) {
      delete request.status;
    },
    default(request) {
      request.spec ??= {};
      request.spec.expirationSeconds ??= DEFAULT_TOKEN_EXPIRATION_SECONDS;
    },
    validate: validateTokenRequest,
    validateUpdate: () => [],
  },
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.authentication.v1.TokenRequest', pointers: ['spec.expirationSeconds'] },
  virtual: {
    subresourceOf: { group: '', version: 'v1', resource: 'serviceaccounts', subresource: 'token' },
    async create(request, { name, namespace, domain }) {
      const given = request.metadata.name;
      if (given && given !== name) {
        const error = invalid(newPath('metadata', 'name'), given, 'must match the service account name if specified');
        throw newInvalid({ group: `authentication.${domain}`, kind: 'TokenRequest' }, name, [error]);
      }
      const issued = await issuer.issue({
        namespace,
        name,
        audiences: request.spec.audiences ?? [],
        expirationSeconds: request.spec.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS,
        ...(request.spec.boundObjectRef && { boundObjectRef: request.spec.boundObjectRef }),
      });
      if (issued.token.length > MAX_TOKEN_BYTES) {
        const error = forbidden(
          newPath('spec', 'audiences'),
          `the token would be ${issued.token.length} bytes, more than a request header can carry (at most ${MAX_TOKEN_BYTES})`,
        );
        throw newInvalid({ group: `authentication.${domain}`, kind: 'TokenRequest' }, name, [error]);
      }
      return {
        apiVersion: request.apiVersion,
        kind: request.kind,
        metadata: { name, namespace, creationTimestamp: issued.issuedAt },
        spec: { ...request.spec, audiences: issued.audiences },
        status: { token: issued.token, expirationTimestamp: issued.expirationTimestamp },
      };
    },
  },
}) satisfies ResourceDefinition<TokenRequest>;
