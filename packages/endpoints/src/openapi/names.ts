// Names in the OpenAPI documents as upstream gives them: definition names after the Go package of
// the type (io.k8s.api.rbac.v1.Role), operation IDs and tags after the path and the verb.

/** "k8s.io" -> "io.k8s": the prefix of every definition name. */
const reverseDomain = (domain: string): string => domain.split('.').reverse().join('.');

/** Groups whose Go package is not named after the group's first label. */
const PACKAGE_EXCEPTIONS: Record<string, string> = { 'internal.apiserver': 'apiserverinternal' };

/** The group without the API domain: "rbac.authorization" for rbac.authorization.<domain>, "core" for "". */
function shortGroup(group: string, domain: string): string {
  if (!group) return 'core';
  return group.endsWith(`.${domain}`) ? group.slice(0, -domain.length - 1) : group;
}

/** Groups whose Go types live outside k8s.io/api: their package path after the reversed domain. */
const OUTSIDE_API: Record<string, string> = { apiextensions: 'apiextensions-apiserver.pkg.apis.apiextensions' };

/**
 * io.k8s.api.<package>.<version>.<Kind>, as k8s.io/api/<package>/<version> names it (CRDs:
 * io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition).
 */
export function kindDefinitionName(group: string, version: string, kind: string, domain: string): string {
  const short = shortGroup(group, domain);
  const outside = OUTSIDE_API[short];
  if (outside) return `${reverseDomain(domain)}.${outside}.${version}.${kind}`;
  const pkg = PACKAGE_EXCEPTIONS[short] ?? short.split('.')[0]!;
  return `${reverseDomain(domain)}.api.${pkg}.${version}.${kind}`;
}

/**
 * com.example.stable.v1.CronTab: a custom resource's definition name. Its kind has no Go type, so
 * upstream names it as any type outside its scheme: "<group>/<version>.<Kind>" with the group reversed.
 */
export const customKindDefinitionName = (group: string, version: string, kind: string): string => `${reverseDomain(group)}.${version}.${kind}`;

/** io.k8s.apimachinery.pkg.apis.meta.v1.<Kind>: ObjectMeta, ListMeta, Status, DeleteOptions... */
export const metaDefinitionName = (kind: string, domain: string): string => `${reverseDomain(domain)}.apimachinery.pkg.apis.meta.v1.${kind}`;

/**
 * Upstream's ToValidOperationID: letters, underscores and (not first) digits are kept, anything else
 * is dropped and capitalises what follows.
 */
export function validOperationId(text: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  for (const [i, char] of [...text].entries()) {
    if (/\p{L}/u.test(char) || char === '_' || (i !== 0 && /\p{Nd}/u.test(char))) {
      out += capitalize ? char.toUpperCase() : char;
      capitalize = false;
    } else {
      capitalize = true;
    }
  }
  return out;
}

/** "RbacAuthorizationV1", "CoreV1": what an operation ID puts between its verb and its kind. */
export const groupVersionId = (group: string, version: string, domain: string): string =>
  `${validOperationId(shortGroup(group, domain), true)}${validOperationId(version, true)}`;

/** "rbacAuthorization_v1", "core_v1": the tag of a group version's operations. */
export const groupVersionTag = (group: string, version: string, domain: string): string =>
  `${validOperationId(shortGroup(group, domain), false)}_${validOperationId(version, false)}`;

/** The key of a group version in the /openapi/v3 index: "api/v1", "apis/<group>/<version>". */
export const groupVersionPath = (group: string, version: string): string => (group ? `apis/${group}/${version}` : `api/${version}`);
