// Subject: who a RoleBinding or ClusterRoleBinding grants to (a User, a Group or a ServiceAccount).
import { nameIsDNSSubdomain, notSupported, required, invalid, type FieldError, type FieldPath } from '@plat/apimachinery';
import type { JSONSchema } from '@plat/registry';
import { rbacGroup } from './domain.js';
import { objectSchema, stringField } from './schema.js';

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

const subjectKinds = ['ServiceAccount', 'User', 'Group'] as const;

export const subjectSchema: JSONSchema = objectSchema(
  'A reference to an object or to user identities a binding applies to.',
  {
    kind: stringField('Kind of subject: User, Group or ServiceAccount. An unrecognized kind is an error for the authorizer.'),
    apiGroup: stringField('API group of the subject: "" for ServiceAccount, the RBAC group for User and Group.'),
    name: stringField('Name of the subject.'),
    namespace: stringField(
      'Namespace of a ServiceAccount subject. A non-empty value for a User or Group is an error for the authorizer.',
    ),
  },
  { required: ['kind', 'name'], mapType: 'atomic' },
);

/**
 * Fills apiGroup as upstream's defaulting does: the RBAC group for User and Group, none for a
 * ServiceAccount. apiGroup and namespace are omitempty upstream, so an empty (or null) one is
 * dropped rather than stored as "": a ServiceAccount subject has no apiGroup key at all.
 */
export function defaultSubject(subject: Subject, domain: string): void {
  if (!subject.apiGroup && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = rbacGroup(domain);
  if (!subject.apiGroup) delete subject.apiGroup;
  if (!subject.namespace) delete subject.namespace;
}

/**
 * Problems with one subject. A ServiceAccount subject of a ClusterRoleBinding (not `namespaced`) must
 * name its namespace; in a RoleBinding it defaults to the binding's.
 */
export function validateSubject(subject: Subject, namespaced: boolean, path: FieldPath, domain: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = subject.name ?? '';
  const apiGroup = subject.apiGroup ?? '';
  if (!name) errors.push(required(path.child('name')));

  switch (subject.kind) {
    case 'ServiceAccount':
      if (name) {
        for (const message of nameIsDNSSubdomain(name, false)) errors.push(invalid(path.child('name'), name, message));
      }
      if (apiGroup) errors.push(notSupported(path.child('apiGroup'), apiGroup, ['']));
      if (!namespaced && !subject.namespace) errors.push(required(path.child('namespace')));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== rbacGroup(domain)) errors.push(notSupported(path.child('apiGroup'), apiGroup, [rbacGroup(domain)]));
      break;
    default:
      errors.push(notSupported(path.child('kind'), subject.kind ?? '', subjectKinds));
  }
  return errors;
}

/** Users, groups and service accounts ("namespace/name") named by subjects, for table columns. */
export function subjectsStrings(subjects: readonly Subject[] | undefined): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of subjects ?? []) {
    if (s.kind === 'ServiceAccount') serviceAccounts.push(`${s.namespace ?? ''}/${s.name}`);
    else if (s.kind === 'User') users.push(s.name);
    else if (s.kind === 'Group') groups.push(s.name);
  }
  return { users, groups, serviceAccounts };
}
