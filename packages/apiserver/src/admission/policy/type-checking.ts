// Type checking of a policy's expressions against the kinds it matches (upstream's
// validatingadmissionpolicy/typechecking.go): each validation's expression and messageExpression
// compiled with `object` and `oldObject` of each kind its rules name exactly (at most 10 kinds, no
// wildcards) and `params` of its paramKind, all typed by their schemas; what does not compile is a
// warning for status.typeChecking, not an error (the expressions run with dyn types).
import { objectMetaSchema, policyVariables, parseGroupVersion, type ExpressionWarning, type ValidatingAdmissionPolicy } from '@plat/api';
import { CelEnvironment, CompileError, DynType, schemaDeclType, type CelType, type SchemaNode } from '@plat/cel';
import type { JSONSchema } from '@plat/registry';
import type { ResourceCatalog, ServedResource } from '../../resources/catalog.js';

const MAX_TYPES_TO_CHECK = 10;

interface CheckedKind {
  gvk: string;
  type: CelType;
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

/** A served resource's whole-object schema, metadata as ObjectMeta (as upstream's OpenAPI gives it). */
function resourceSchema(served: ServedResource): SchemaNode {
  const definition = served.resolved.definition;
  const schema = definition.unstructured?.openAPIV3Schema ?? definition.schema;
  const properties = { ...((schema.properties as Record<string, JSONSchema> | undefined) ?? {}), metadata: objectMetaSchema, apiVersion: { type: 'string' }, kind: { type: 'string' } };
  return schemaNode({ ...schema, type: 'object', properties });
}

/** upstream's GroupVersionKind.String(): "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap". */
const gvkString = (group: string, version: string, kind: string): string => `${group}/${version}, Kind=${kind}`;

export class PolicyTypeChecker {
  constructor(private readonly catalog: ResourceCatalog) {}

  /** The kinds the policy's rules name without wildcards, sorted, at most 10 (upstream's typesToCheck). */
  private kindsToCheck(policy: ValidatingAdmissionPolicy): ServedResource[] {
    const found = new Map<string, ServedResource>();
    let count = 0;
    for (const rule of policy.spec?.matchConstraints?.resourceRules ?? []) {
      const groups = rule.apiGroups ?? [];
      const versions = rule.apiVersions ?? [];
      if (!groups.length || groups.some((g) => g.includes('*')) || !versions.length || versions.some((v) => v.includes('*'))) continue;
      const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
      for (const group of [...groups].sort()) {
        for (const version of [...versions].sort()) {
          for (const resource of resources.sort()) {
            const served = this.catalog.find(group, version, resource);
            if (!served) continue;
            found.set(gvkString(group, version, served.resolved.kind), served);
            if (++count === MAX_TYPES_TO_CHECK) return sortKinds(found);
          }
        }
      }
    }
    return sortKinds(found);
  }

  private declared(served: ServedResource, kind: string): CelType {
    return schemaDeclType(resourceSchema(served), true, kind)?.type ?? DynType;
  }

  /** The warnings for status.typeChecking.expressionWarnings (upstream's TypeChecker.Check). */
  check(policy: ValidatingAdmissionPolicy): ExpressionWarning[] {
    const kinds: CheckedKind[] = this.kindsToCheck(policy).map((served) => ({
      gvk: gvkString(served.resolved.group, served.resolved.version, served.resolved.kind),
      type: this.declared(served, served.resolved.kind),
    }));
    if (!kinds.length) return [];
    const spec = policy.spec ?? {};
    const hasParams = !!spec.paramKind;
    let params: CelType = DynType;
    if (spec.paramKind) {
      const gv = parseGroupVersion(spec.paramKind.apiVersion ?? '');
      const served = typeof gv === 'string' ? undefined : this.catalog.all().find((s) => s.resolved.group === gv.group && s.resolved.version === gv.version && s.resolved.kind === spec.paramKind!.kind);
      if (served) params = this.declared(served, served.resolved.kind);
    }
    const variableNames = (spec.variables ?? []).map((v) => v.name);
    const environments = kinds.map(({ gvk, type }) => ({
      gvk,
      env: new CelEnvironment(policyVariables({ hasParams, hasAuthorizer: true }, variableNames, type, params)),
    }));
    const checkExpression = (source: string): string => {
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
      const expression = checkExpression(validation.expression ?? '');
      if (expression) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: expression });
      if (!validation.messageExpression) return;
      const message = checkExpression(validation.messageExpression);
      if (message) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: message });
    });
    return warnings;
  }
}

function sortKinds(found: Map<string, ServedResource>): ServedResource[] {
  const key = (s: ServedResource): [string, string, string] => [s.resolved.group, s.resolved.version, s.resolved.kind];
  return [...found.values()].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return 0;
  });
}
