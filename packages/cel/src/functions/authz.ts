// Kubernetes' authorizer library (pkg/cel/library/authz.go), for the expressions that are given an
// Authorizer variable (admission policies): `authorizer.group(g).resource(r)...check(verb)` and
// `authorizer.path(p).check(verb)`, each check asking the server's authorizer, synchronously.
import { isDNS1123Label, isDNS1123Subdomain, type AccessAttributes, type AccessDecision, type UserInfo } from '@plat/apimachinery';
import { BoolType, StringType, opaque } from '../types.js';
import { OpaqueValue, type Value } from '../values.js';
import { err, fn, member, type FunctionDecl } from './overload.js';

/** What the library asks: the server's authorization decision on one request's attributes. */
export interface CelAuthorizer {
  authorize(attributes: AccessAttributes): AccessDecision;
}

export const AuthorizerType = opaque('kubernetes.authorization.Authorizer');
export const PathCheckType = opaque('kubernetes.authorization.PathCheck');
export const GroupCheckType = opaque('kubernetes.authorization.GroupCheck');
export const ResourceCheckType = opaque('kubernetes.authorization.ResourceCheck');
export const DecisionType = opaque('kubernetes.authorization.Decision');

/** The library's values compare equal only to themselves (upstream's receiver-only objects). */
abstract class ReceiverOnly extends OpaqueValue {
  equals(other: OpaqueValue): boolean {
    return other === this;
  }
}

export class AuthorizerValue extends ReceiverOnly {
  readonly typeName = 'kubernetes.authorization.Authorizer';
  constructor(
    readonly user: UserInfo,
    readonly authorizer: CelAuthorizer,
  ) {
    super();
  }
}

class PathCheckValue extends ReceiverOnly {
  readonly typeName = 'kubernetes.authorization.PathCheck';
  constructor(
    readonly authz: AuthorizerValue,
    readonly path: string,
  ) {
    super();
  }
}

class GroupCheckValue extends ReceiverOnly {
  readonly typeName = 'kubernetes.authorization.GroupCheck';
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
  ) {
    super();
  }
}

export class ResourceCheckValue extends ReceiverOnly {
  readonly typeName = 'kubernetes.authorization.ResourceCheck';
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {
    super();
  }
  with(change: { subresource?: string; namespace?: string; name?: string }): ResourceCheckValue {
    return new ResourceCheckValue(
      this.authz,
      this.group,
      this.resource,
      change.subresource ?? this.subresource,
      change.namespace ?? this.namespace,
      change.name ?? this.name,
    );
  }
}

class DecisionValue extends ReceiverOnly {
  readonly typeName = 'kubernetes.authorization.Decision';
  constructor(readonly decision: AccessDecision) {
    super();
  }
}

const blankAttributes = (user: UserInfo, verb: string): AccessAttributes => ({
  user,
  verb,
  namespace: '',
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  name: '',
  isResourceRequest: false,
  path: '',
});

function serviceAccount(authz: AuthorizerValue, namespace: string, name: string): Value {
  if (isDNS1123Subdomain(name).length) return err('Invalid service account name');
  if (isDNS1123Label(namespace).length) return err('Invalid service account namespace');
  const user: UserInfo = {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
  return new AuthorizerValue(user, authz.authorizer);
}

function checkPath(check: PathCheckValue, verb: string): Value {
  return new DecisionValue(check.authz.authorizer.authorize({ ...blankAttributes(check.authz.user, verb), path: check.path }));
}

function checkResource(check: ResourceCheckValue, verb: string): Value {
  const attributes: AccessAttributes = {
    ...blankAttributes(check.authz.user, verb),
    isResourceRequest: true,
    apiGroup: check.group,
    apiVersion: '*',
    resource: check.resource,
    subresource: check.subresource,
    namespace: check.namespace,
    name: check.name,
  };
  return new DecisionValue(check.authz.authorizer.authorize(attributes));
}

const S = StringType;
const str = (v: Value | undefined): string => v as string;

export const authzLibrary: readonly FunctionDecl[] = [
  fn(
    'path',
    member('authorizer_path', [AuthorizerType, S], PathCheckType, ([a, p]) =>
      str(p).trim() === '' ? err('path must not be empty') : new PathCheckValue(a as AuthorizerValue, str(p)),
    ),
  ),
  fn('group', member('authorizer_group', [AuthorizerType, S], GroupCheckType, ([a, g]) => new GroupCheckValue(a as AuthorizerValue, str(g)))),
  fn(
    'serviceAccount',
    member('authorizer_serviceaccount', [AuthorizerType, S, S], AuthorizerType, ([a, ns, n]) => serviceAccount(a as AuthorizerValue, str(ns), str(n))),
  ),
  fn(
    'resource',
    member('groupcheck_resource', [GroupCheckType, S], ResourceCheckType, ([g, r]) => {
      const group = g as GroupCheckValue;
      return str(r).trim() === '' ? err('resource must not be empty') : new ResourceCheckValue(group.authz, group.group, str(r));
    }),
  ),
  fn('subresource', member('resourcecheck_subresource', [ResourceCheckType, S], ResourceCheckType, ([r, s]) => (r as ResourceCheckValue).with({ subresource: str(s) }))),
  fn('namespace', member('resourcecheck_namespace', [ResourceCheckType, S], ResourceCheckType, ([r, s]) => (r as ResourceCheckValue).with({ namespace: str(s) }))),
  fn('name', member('resourcecheck_name', [ResourceCheckType, S], ResourceCheckType, ([r, s]) => (r as ResourceCheckValue).with({ name: str(s) }))),
  fn(
    'check',
    member('pathcheck_check', [PathCheckType, S], DecisionType, ([c, v]) => checkPath(c as PathCheckValue, str(v))),
    member('resourcecheck_check', [ResourceCheckType, S], DecisionType, ([c, v]) => checkResource(c as ResourceCheckValue, str(v))),
  ),
  fn('errored', member('decision_errored', [DecisionType], BoolType, ([d]) => Boolean((d as DecisionValue).decision.evaluationError))),
  fn('error', member('decision_error', [DecisionType], S, ([d]) => (d as DecisionValue).decision.evaluationError ?? '')),
  fn('allowed', member('decision_allowed', [DecisionType], BoolType, ([d]) => (d as DecisionValue).decision.decision === 'Allow')),
  fn('reason', member('decision_reason', [DecisionType], S, ([d]) => (d as DecisionValue).decision.reason)),
];
