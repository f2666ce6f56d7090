// UserInfo as the authentication reviews report it (upstream's authentication/v1 UserInfo), from a
// request's user (@plat/apimachinery's UserInfo, which names the user `name` where this says `username`).
import type { UserInfo as User } from '@plat/apimachinery';
import type { JSONSchema } from '@plat/registry';
import { atomicStringList, objectSchema, stringField } from '../common/schema.js';

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export const userInfoSchema: JSONSchema = objectSchema('The information about a user that an authenticator gives.', {
  username: stringField('The name that uniquely identifies this user among all active users.'),
  uid: stringField('A unique value that identifies this user across time; a user deleted and re-added has another uid.'),
  groups: atomicStringList('The names of the groups this user is a part of.'),
  extra: {
    type: 'object',
    description: 'Any additional information the authenticator provided.',
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
});

/** Go's omitempty: only the fields that have a value. */
export function userInfoOf(user: User): UserInfo {
  const info: UserInfo = {};
  if (user.name) info.username = user.name;
  if (user.uid) info.uid = user.uid;
  if (user.groups.length) info.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) info.extra = structuredClone(user.extra);
  return info;
}
