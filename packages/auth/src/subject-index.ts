// Bindings filed by subject: the keys a subject is filed under (which the users it names also
// produce), and which of a binding's subjects apply to a user, or are malformed where they would.
import { goQuote, type Subject, type UserInfo } from '@plat/apimachinery';
import { serviceAccountUsername } from './domain.js';

const userKey = (name: string): string => `u${name}`;
const groupKey = (name: string): string => `g${name}`;

/**
 * The keys a subject is filed under, which the users it names also produce: user and
 * service-account subjects by user name, groups by group name. A subject of an unknown kind
 * applies to no one, but is filed under both its name as a user and as a group, so that a user it
 * might have meant is told about it (see subjectProblem).
 */
export function subjectKeys(subject: Subject, bindingNamespace: string): string[] {
  switch (subject.kind) {
    case 'User':
      return [userKey(subject.name)];
    case 'Group':
      return [groupKey(subject.name)];
    case 'ServiceAccount': {
      // A RoleBinding's service accounts default to the binding's namespace; a ClusterRoleBinding's must name one.
      const namespace = subject.namespace || bindingNamespace;
      return namespace ? [userKey(serviceAccountUsername(namespace, subject.name))] : [];
    }
    default:
      return subject.name ? [userKey(subject.name), groupKey(subject.name)] : [];
  }
}

/** Whether a subject names the user by its kind: user and service accounts by user name, groups by membership. */
function namesUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const saNamespace = subject.namespace || namespace;
      return saNamespace !== '' && user.name === serviceAccountUsername(saNamespace, subject.name);
    }
    default:
      return false;
  }
}

/**
 * What the authorizer reports, instead of granting, for a subject that would name the user but is
 * malformed, as the Subject type asks: a User or Group with a namespace, or a kind it does not know
 * (named like the user or one of its groups). Upstream's authorizer ignores the namespace and
 * grants the User or Group, and skips an unknown kind silently. Validation, as upstream's, stores a
 * User or Group with a namespace but refuses an unknown kind, which can reach the index only
 * from outside the API.
 */
function subjectProblem(user: UserInfo, subject: Subject, namespace: string): string | undefined {
  switch (subject.kind) {
    case 'User':
    case 'Group':
      if (!subject.namespace || !namesUser(user, subject, namespace)) return undefined;
      return `${subject.kind} subject ${goQuote(subject.name)} cannot have a namespace: ${goQuote(subject.namespace)}`;
    case 'ServiceAccount':
      return undefined;
    default:
      if (user.name !== subject.name && !user.groups.includes(subject.name)) return undefined;
      return `subject ${goQuote(subject.name)} has an unsupported kind: ${goQuote(subject.kind ?? '')}`;
  }
}

/**
 * The binding's first subject that applies to the user (upstream's appliesToUser, which does not
 * look at a subject's apiGroup), and the problems of the malformed subjects that would otherwise
 * name the user: those never apply.
 */
export function matchSubjects(user: UserInfo, subjects: readonly Subject[], namespace: string): { applying?: Subject; problems: string[] } {
  let applying: Subject | undefined;
  const problems: string[] = [];
  for (const subject of subjects) {
    const problem = subjectProblem(user, subject, namespace);
    if (problem !== undefined) problems.push(problem);
    else if (!applying && namesUser(user, subject, namespace)) applying = subject;
  }
  return { applying, problems };
}

export function addToIndex(index: Map<string, Set<string>>, keys: readonly string[], name: string): void {
  for (const key of keys) {
    let names = index.get(key);
    if (!names) index.set(key, (names = new Set()));
    names.add(name);
  }
}

export function removeFromIndex(index: Map<string, Set<string>>, keys: readonly string[], name: string): void {
  for (const key of keys) {
    const names = index.get(key);
    names?.delete(name);
    if (names?.size === 0) index.delete(key);
  }
}

/** Names of the bindings filed under any of the user's keys, sorted so that every replica visits them in the same order. */
export function bindingNamesFor(index: Map<string, Set<string>> | undefined, user: UserInfo): string[] {
  if (!index) return [];
  const found = new Set<string>();
  const add = (names: Set<string> | undefined): void => names?.forEach((name) => found.add(name));
  add(index.get(userKey(user.name)));
  for (const group of user.groups) add(index.get(groupKey(group)));
  return [...found].sort();
}
