// The kinds a server serves: the definitions --runtime-config leaves on (versions turned off are not
// in the catalog, so discovery, OpenAPI and dispatch all follow), each registered with the Protobuf
// codec before the first object, and the ones the server cannot do without.
import { resolveGroup, type ResourceDefinition } from '@plat/registry';
import { registerProtobufKinds } from '@plat/protobuf';
import { scaleKind } from '@plat/api';
import type { AuthorizationMode } from '@plat/authz';
import { apiEnablement } from '../../runtime-config.js';
import type { ApiOptions } from '../options.js';
import type { WiredKinds } from './kinds.js';

export function servedDefinitions(api: ApiOptions, kinds: WiredKinds, modes: readonly AuthorizationMode[]): ResourceDefinition[] {
  const { definitions, subresourceDefinitions } = kinds;
  // The kinds subresources are served as too: Scale, for the custom resources that may come.
  const subresourceKinds = definitions.flatMap((definition) => Object.values(definition.subresources ?? {}).flatMap((sub) => (sub.servedAs ? [sub.servedAs] : [])));
  registerProtobufKinds([...definitions, ...subresourceDefinitions, scaleKind, ...subresourceKinds]);
  const enabled = apiEnablement(api.runtimeConfig ?? [], definitions, api.domain);
  const required = [
    { group: '', version: 'v1', resource: 'namespaces' },
    ...(modes.includes('RBAC')
      ? ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'].map((resource) => ({ group: `rbac.authorization.${api.domain}`, version: 'v1', resource }))
      : []),
  ];
  for (const { group, version, resource } of required) {
    const defined = definitions.some((d) => resolveGroup(d.group, api.domain) === group && d.version === version && d.resource === resource);
    if (defined && !enabled(group, version, resource)) throw new Error(`--runtime-config: ${group ? `${group}/` : ''}${version}/${resource} cannot be disabled: the server needs it`);
  }
  return definitions.filter((definition) => enabled(resolveGroup(definition.group, api.domain), definition.version, definition.resource));
}
