// Impersonation, as upstream's filter: Impersonate-User (a user or a service account),
// Impersonate-Group, Impersonate-Uid and Impersonate-Extra-<key> headers make the request act as
// another user, each part allowed only by the `impersonate` verb on users, serviceaccounts, groups,
// uids or userextras/<key>. The authenticated user is kept as ctx.state.impersonator.
import type { IncomingHttpHeaders } from 'node:http';
import { goQuote, newBadRequest } from '@plat/apimachinery';
import { forbiddenError, type Authorizer } from '@plat/authz';
import type { AccessAttributes } from '@plat/apimachinery';
import type { Middleware } from '../context.js';
import {
  ALL_AUTHENTICATED,
  ALL_UNAUTHENTICATED,
  ANONYMOUS_USER,
  serviceAccountGroups,
  serviceAccountUsername,
  splitServiceAccountUsername,
  type UserInfo,
} from '@plat/authn';

const USER_HEADER = 'impersonate-user';
const USER_HEADER_NAME = 'Impersonate-User';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
/** What every impersonation header's name starts with. */
const IMPERSONATE_PREFIX = 'impersonate-';

/** One thing the request asks to act as, with what the requester must be allowed to impersonate it. */
interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  name: string;
  namespace?: string;
  /** For UserExtra: the extra key. */
  key?: string;
}

function describe(request: ImpersonationRequest): string {
  const parts = [`Kind: ${request.kind}`];
  if (request.namespace) parts.push(`Namespace: ${request.namespace}`);
  parts.push(`Name: ${goQuote(request.name)}`);
  if (request.key) parts.push(`Key: ${goQuote(request.key)}`);
  return `{${parts.join(', ')}}`;
}

/** Extra keys are percent-encoded in header names (upstream's unescapeExtraKey); a bad escape is kept. */
function extraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Upstream's buildImpersonationRequests; throws when groups, extras or a uid come without a user. */
export function impersonationRequests(headers: Record<string, string[] | undefined>): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const user = headers[USER_HEADER]?.[0] ?? '';
  if (user) {
    const account = splitServiceAccountUsername(user);
    requests.push(account ? { kind: 'ServiceAccount', ...account } : { kind: 'User', name: user });
  }
  let others = false;
  for (const group of headers[GROUP_HEADER] ?? []) {
    others = true;
    requests.push({ kind: 'Group', name: group });
  }
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    others = true;
    const key = extraKey(header.slice(EXTRA_PREFIX.length).toLowerCase());
    for (const value of values ?? []) requests.push({ kind: 'UserExtra', name: value, key });
  }
  const uid = headers[UID_HEADER]?.[0] ?? '';
  if (uid) {
    others = true;
    requests.push({ kind: 'UID', name: uid });
  }
  if (others && !user) throw new Error(`requested [${requests.map(describe).join(' ')}] without impersonating a user`);
  return requests;
}

function attributesFor(request: ImpersonationRequest, requester: UserInfo, domain: string): AccessAttributes {
  const base: AccessAttributes = {
    user: requester,
    verb: 'impersonate',
    isResourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    namespace: request.namespace ?? '',
    resource: '',
    subresource: '',
    name: request.name,
  };
  switch (request.kind) {
    case 'ServiceAccount':
      return { ...base, resource: 'serviceaccounts' };
    case 'User':
      return { ...base, resource: 'users' };
    case 'Group':
      return { ...base, resource: 'groups' };
    case 'UserExtra':
      return { ...base, apiGroup: `authentication.${domain}`, resource: 'userextras', subresource: request.key ?? '' };
    case 'UID':
      return { ...base, apiGroup: `authentication.${domain}`, resource: 'uids' };
  }
}

/** The user the requests make, once each is allowed (upstream's rules for the implied groups). */
function impersonatedUser(requests: readonly ImpersonationRequest[], groupsGiven: boolean): UserInfo {
  let name = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const request of requests) {
    if (request.kind === 'ServiceAccount') {
      name = serviceAccountUsername(request.namespace!, request.name);
      // A service account's groups are known; given groups replace them.
      if (!groupsGiven) groups.push(...serviceAccountGroups(request.namespace!));
    } else if (request.kind === 'User') name = request.name;
    else if (request.kind === 'Group') groups.push(request.name);
    else if (request.kind === 'UserExtra') (extra[request.key!] ??= []).push(request.name);
    else uid = request.name;
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
    groups.push(ALL_UNAUTHENTICATED);
  }
  return { name, uid, groups, ...(Object.keys(extra).length && { extra }) };
}

/** Whether any header asks for impersonation; most requests have none, and headersDistinct is built on first read. */
function asksForImpersonation(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length > IMPERSONATE_PREFIX.length && name.slice(0, IMPERSONATE_PREFIX.length).toLowerCase() === IMPERSONATE_PREFIX) return true;
  }
  return false;
}

export function impersonationFilter(authorizer: Authorizer, domain: string): Middleware {
  return async (ctx, next) => {
    if (!asksForImpersonation(ctx.req.rawHeaders)) return next();
    const headers = (ctx.req as { headersDistinct?: Record<string, string[] | undefined> }).headersDistinct ?? toDistinct(ctx.req.headers);
    let requests: ImpersonationRequest[];
    try {
      requests = impersonationRequests(headers);
    } catch (error) {
      // Upstream answers 500 here; it is the request that is wrong, so it is a 400 naming the header.
      throw newBadRequest(`${(error as Error).message}: the ${USER_HEADER_NAME} header is missing`);
    }
    if (!requests.length) return next();
    const requester = ctx.state.user;
    for (const request of requests) {
      const attributes = attributesFor(request, requester, domain);
      const result = await authorizer.authorize(attributes);
      if (result.decision !== 'Allow') throw forbiddenError(attributes, result.reason);
    }
    ctx.state.impersonator = requester;
    ctx.state.user = impersonatedUser(requests, (headers[GROUP_HEADER]?.length ?? 0) > 0);
    // Nothing after this filter should see the request as made by anyone else.
    for (const header of Object.keys(ctx.req.headers)) {
      if (header === USER_HEADER || header === GROUP_HEADER || header === UID_HEADER || header.startsWith(EXTRA_PREFIX)) delete ctx.req.headers[header];
    }
    return next();
  };
}

function toDistinct(headers: IncomingHttpHeaders): Record<string, string[] | undefined> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value : [value];
  return out;
}
