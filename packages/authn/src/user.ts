// The authenticated identity of a request, with the well-known names upstream gives users and groups.
import { isDNS1123Label, isDNS1123Subdomain, type UserInfo } from '@plat/apimachinery';

export type { UserInfo };

export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
/** Members are allowed everything, whatever the authorization mode (upstream's system:masters). */
export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';
/** Every service account is in this group, and in `system:serviceaccounts:<namespace>`. */
const ALL_SERVICE_ACCOUNTS = 'system:serviceaccounts';

export const anonymousUser = (): UserInfo => ({ name: ANONYMOUS_USER, uid: '', groups: [ALL_UNAUTHENTICATED] });

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** `system:serviceaccount:<namespace>:<name>`, the user a service account's tokens authenticate as. */
export const serviceAccountUsername = (namespace: string, name: string): string => `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;

/** The groups of every service account of a namespace. */
export const serviceAccountGroups = (namespace: string): string[] => [ALL_SERVICE_ACCOUNTS, `${ALL_SERVICE_ACCOUNTS}:${namespace}`];

/**
 * The namespace and name of a service-account user name, or undefined for any other user name
 * (upstream's SplitUsername: two parts, a DNS label and a DNS subdomain).
 */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  return isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length ? undefined : { namespace, name };
}
