// Who makes a request, as authentication (and impersonation) settled it: upstream's user.Info.
// One shape for every package: authentication fills it, authorization, admission and access
// reviews read it.

export interface UserInfo {
  name: string;
  /** Empty or absent when the authenticator gives none. */
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}
