// The authenticated identity of a request, with the well-known names upstream gives users and groups.

export interface UserInfo {
  name: string;
  uid: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
/** Members are allowed everything, whatever the authorization mode (upstream's system:masters). */
export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';

export const anonymousUser = (): UserInfo => ({ name: ANONYMOUS_USER, uid: '', groups: [ALL_UNAUTHENTICATED] });
