// Where a rule comes from: the binding and subject through which it applies, as upstream's
// authorizer names them in its reasons and in a rules review's evaluation errors.
import { goQuote, type Subject } from '@plat/apimachinery';
import type { RoleBinding } from './types.js';

/** The binding and subject through which a rule applies: upstream's clusterRoleBindingDescriber / roleBindingDescriber. */
export class RuleSource {
  private text: string | undefined;

  constructor(
    readonly bindingKind: 'ClusterRoleBinding' | 'RoleBinding',
    readonly binding: RoleBinding,
    /** The binding's first subject that applies to the user. */
    readonly subject: Subject,
  ) {}

  /** `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`, or `RoleBinding "x/ns" of Role "y" to ServiceAccount "sa/ns"`. */
  toString(): string {
    if (this.text !== undefined) return this.text;
    const { kind = '', name: roleName = '' } = this.binding.roleRef ?? {};
    const bindingNamespace = this.bindingKind === 'RoleBinding' ? (this.binding.metadata?.namespace ?? '') : '';
    this.text = `${describeBinding(this.bindingKind, this.binding)} of ${kind} ${goQuote(roleName)} to ${describeSubject(this.subject, bindingNamespace)}`;
    return this.text;
  }
}

/** Upstream prints a service account as "name/namespace". */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} ${goQuote(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  return `${subject.kind} ${goQuote(subject.name)}`;
}

/** The name a binding goes by in messages: `ClusterRoleBinding "x"` or `RoleBinding "x/ns"`, as RuleSource. */
export function describeBinding(bindingKind: 'ClusterRoleBinding' | 'RoleBinding', binding: RoleBinding): string {
  const { name = '', namespace = '' } = binding.metadata ?? {};
  return `${bindingKind} ${goQuote(bindingKind === 'RoleBinding' ? `${name}/${namespace}` : name)}`;
}
