// What RoleBinding and ClusterRoleBinding share: defaulting, validation and table columns.
import { newPath, type FieldError } from '@plat/apimachinery';
import type { KubeObject, TableColumn } from '@plat/registry';
import { defaultRoleRef, validateRoleRef, validateRoleRefUpdate, type RoleRef } from './role-ref.js';
import { defaultSubject, subjectsStrings, validateSubject, type Subject } from './subject.js';
import { ageColumn, nameColumn } from './table.js';

export interface Binding extends KubeObject {
  roleRef: RoleRef;
  subjects?: Subject[];
}

export function defaultBinding(binding: Binding, domain: string): void {
  binding.roleRef = defaultRoleRef(binding.roleRef, domain);
  for (const subject of binding.subjects ?? []) defaultSubject(subject, domain);
}

/** `namespaced` is true for a RoleBinding; `roleKinds` are the role kinds it may reference. */
export function validateBinding(binding: Binding, namespaced: boolean, roleKinds: readonly string[], domain: string): FieldError[] {
  const subjects = newPath('subjects');
  return [
    ...validateRoleRef(binding.roleRef, roleKinds, domain),
    ...(binding.subjects ?? []).flatMap((s, i) => validateSubject(s, namespaced, subjects.index(i), domain)),
  ];
}

export function validateBindingUpdate(
  binding: Binding,
  old: Binding,
  namespaced: boolean,
  roleKinds: readonly string[],
  domain: string,
): FieldError[] {
  return [...validateBinding(binding, namespaced, roleKinds, domain), ...validateRoleRefUpdate(binding.roleRef, old.roleRef)];
}

/** NAME, ROLE, AGE, and with -o wide USERS, GROUPS, SERVICEACCOUNTS, as kubectl shows bindings. */
export function bindingTableColumns<T extends Binding>(): readonly TableColumn<T>[] {
  return [
    nameColumn<T>(),
    {
      name: 'Role',
      type: 'string',
      description: 'The role the binding grants, as kind/name.',
      priority: 0,
      value: (b) => `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`,
    },
    ageColumn<T>(),
    {
      name: 'Users',
      type: 'string',
      description: 'Users in the roleBinding',
      priority: 1,
      value: (b) => subjectsStrings(b.subjects).users.join(', '),
    },
    {
      name: 'Groups',
      type: 'string',
      description: 'Groups in the roleBinding',
      priority: 1,
      value: (b) => subjectsStrings(b.subjects).groups.join(', '),
    },
    {
      name: 'ServiceAccounts',
      type: 'string',
      description: 'ServiceAccounts in the roleBinding',
      priority: 1,
      value: (b) => subjectsStrings(b.subjects).serviceAccounts.join(', '),
    },
  ];
}
