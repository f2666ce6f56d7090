// Type checking of a policy's expressions against the kinds it matches (upstream's
// validatingadmissionpolicy/typechecking.go): each validation's expression and messageExpression
// compiled with `object` and `oldObject` of each kind its rules name exactly (at most 10 kinds, no
// wildcards) and `params` of its paramKind, all typed by their schemas; what does not compile is a
// warning for status.typeChecking, not an error (the expressions run with dyn types).
import { CelEnvironment, CompileError, DynType, schemaDeclType, type CelType, type SchemaNode } from '@plat/cel';
import type { JSONSchema } from '@plat/registry';
import { objectMetaSchema } from '../common/object-meta-schema.js';
import { policyVariables } from './policy-cel.js';
import type { ExpressionWarning, ValidatingAdmissionPolicy } from './types.js';
import { parseGroupVersion } from './validation.js';

const MAX_TYPES_TO_CHECK = 10;

/** A kind served by the server, with its whole-object schema (a built-in kind's, or a CRD version's OpenAPI schema). */
export interface TypedKind {
  group: string;
  version: string;
  kind: string;
  schema: JSONSchema;
}

/** How the server's kinds are found: by group, version and resource, or by group, version and kind. */
export interface KindResolver {
  byResource(group: string, version: string, resource: string): TypedKind | undefined;
  byKind(group: string, version: string, kind: string): TypedKind | undefined;
}

/** Our JSON schema of a kind as the schema node expressions are typed by (type unions are int-or-string). */
function schemaNode(schema: JSONSchema): SchemaNode {
  const node: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) node['x-kubernetes-int-or-string'] = true;
    else if (key === 'properties' && value && typeof value === 'object') {
      node.properties = Object.fromEntries(Object.entries(value as Record<string, JSONSchema>).map(([k, v]) => [k, schemaNode(v)]));
    } else if ((key === 'items' || key === 'additionalProperties') && value && typeof value === 'object') node[key] = schemaNode(value as JSONSchema);
    else node[key] = value;
  }
  return node as SchemaNode;
}

/** A kind's declared type, metadata as ObjectMeta (as upstream's OpenAPI gives it). */
function declared({ schema, kind }: TypedKind): CelType {
  const properties = { ...((schema.properties as Record<string, JSONSchema> | undefined) ?? {}), metadata: objectMetaSchema, apiVersion: { type: 'string' }, kind: { type: 'string' } };
  return schemaDeclType(schemaNode({ ...schema, type: 'object', properties }), true, kind)?.type ?? DynType;
}

/** upstream's GroupVersionKind.String(): "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap". */
const gvkString = ({ group, version, kind }: TypedKind): string => `${group}/${version}, Kind=${kind}`;

/** The kinds the policy's rules name without wildcards, sorted, at most 10 (upstream's typesToCheck). */
function kindsToCheck(policy: ValidatingAdmissionPolicy, kinds: KindResolver): TypedKind[] {
  const found = new Map<string, TypedKind>();
  let count = 0;
  const sorted = (): TypedKind[] =>
    [...found.values()].sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : 1));
  for (const rule of policy.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (!groups.length || groups.some((g) => g.includes('*')) || !versions.length || versions.some((v) => v.includes('*'))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r)).sort();
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const resource of resources) {
          const kind = kinds.byResource(group, version, resource);
          if (!kind) continue;
          found.set(gvkString(kind), kind);
          if (++count === MAX_TYPES_TO_CHECK) return sorted();
        }
      }
    }
  }
  return sorted();
}

/** The warnings for status.typeChecking.expressionWarnings (upstream's TypeChecker.Check). */
export function typeCheckPolicy(policy: ValidatingAdmissionPolicy, kinds: KindResolver): ExpressionWarning[] {
  const checked = kindsToCheck(policy, kinds);
  if (!checked.length) return [];
  const spec = policy.spec ?? {};
  const hasParams = !!spec.paramKind;
  let params: CelType = DynType;
  if (spec.paramKind) {
    const gv = parseGroupVersion(spec.paramKind.apiVersion ?? '');
    const kind = typeof gv === 'string' ? undefined : kinds.byKind(gv.group, gv.version, spec.paramKind.kind ?? '');
    if (kind) params = declared(kind);
  }
  // Unlike upstream 1.28, `variables` and `authorizer.requestResource` are declared: expressions
  // that read them are not warned about what the server runs without complaint.
  const variableNames = (spec.variables ?? []).map((v) => v.name);
  const environments = checked.map((kind) => ({ gvk: gvkString(kind), env: new CelEnvironment(policyVariables({ hasParams, hasAuthorizer: true }, variableNames, declared(kind), params)) }));
  const check = (source: string): string => {
    const messages: string[] = [];
    for (const { gvk, env } of environments) {
      try {
        env.compile(source);
      } catch (error) {
        if (!(error instanceof CompileError)) throw error;
        messages.push(`${gvk}: ${error.message}\n`);
      }
    }
    return messages.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  (spec.validations ?? []).forEach((validation, i) => {
    const expression = check(validation.expression ?? '');
    if (expression) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: expression });
    if (!validation.messageExpression) return;
    const message = check(validation.messageExpression);
    if (message) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: message });
  });
  return warnings;
}
