// RoleRef: the role a binding grants, fixed for the binding's lifetime.
import { invalid, newPath, notSupported, required, nameIsPathSegment, type FieldError } from '@plat/apimachinery';
import type { JSONSchema } from '@plat/registry';
import { rbacGroup } from './domain.js';
import { objectSchema, stringField } from './schema.js';

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export const roleRefSchema: JSONSchema = objectSchema(
  'The role being referenced.',
  {
    apiGroup: stringField('Group of the referenced role: the RBAC API group.'),
    kind: stringField('Kind of the referenced role: Role or ClusterRole.'),
    name: stringField('Name of the referenced role.'),
  },
  { required: ['apiGroup', 'kind', 'name'], mapType: 'atomic' },
);

/**
 * The roleRef with apiGroup filled with the RBAC group when it is empty, as upstream's defaulting
 * does. Upstream's roleRef is a struct, never nil: an absent (or null) roleRef is an empty one,
 * defaulted like any other, so that validation reports only its kind and name.
 */
export function defaultRoleRef(roleRef: RoleRef | undefined | null, domain: string): RoleRef {
  const defaulted = roleRef ?? ({} as RoleRef);
  if (!defaulted.apiGroup) defaulted.apiGroup = rbacGroup(domain);
  return defaulted;
}

/** Problems with a binding's roleRef; `kinds` are the role kinds the binding may reference. */
export function validateRoleRef(roleRef: Partial<RoleRef> | undefined, kinds: readonly string[], domain: string): FieldError[] {
  const errors: FieldError[] = [];
  const path = newPath('roleRef');
  const { apiGroup = '', kind = '', name = '' } = roleRef ?? {};
  if (apiGroup !== rbacGroup(domain)) errors.push(notSupported(path.child('apiGroup'), apiGroup, [rbacGroup(domain)]));
  if (!kinds.includes(kind)) errors.push(notSupported(path.child('kind'), kind, kinds));
  if (!name) errors.push(required(path.child('name')));
  else for (const message of nameIsPathSegment(name, false)) errors.push(invalid(path.child('name'), name, message));
  return errors;
}

/** A binding's roleRef cannot change: rebinding to another role means a new binding. */
export function validateRoleRefUpdate(roleRef: RoleRef | undefined, old: RoleRef | undefined): FieldError[] {
  const same =
    (roleRef?.apiGroup ?? '') === (old?.apiGroup ?? '') &&
    (roleRef?.kind ?? '') === (old?.kind ?? '') &&
    (roleRef?.name ?? '') === (old?.name ?? '');
  return same ? [] : [invalid(newPath('roleRef'), roleRef ?? {}, 'cannot change roleRef')];
}
