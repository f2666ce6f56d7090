// PATCH (conventions 4.5, 4.11): the patch type by Content-Type, then the store's patch.
import { forbidden, newBadRequest, newPath, newRequestEntityTooLarge, newUnsupportedMediaType, required } from '@plat/apimachinery';
import type { PatchType } from '@plat/registry';
import { MAX_BODY_BYTES, readBody } from '../body.js';
import { decodeJson, JsonDecodeError } from '../json-scan.js';
import { operationOptions, parseWriteOptions } from '../query.js';
import { addWarnings, auditAnnotationSink, warningSink, writeObject } from '../respond.js';
import { parseYaml } from '../yaml-body.js';
import { managerOf } from './manager.js';
import type { VerbScope } from './scope.js';

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

function parsePatch(type: PatchType, text: string): { patch: unknown; duplicates: string[] } {
  if (type === 'apply') {
    const parsed = parseYaml(text);
    if (parsed.tooLarge) throw newRequestEntityTooLarge(`limit is ${MAX_BODY_BYTES}`);
    if (parsed.error !== undefined) throw newBadRequest(`error decoding YAML: ${parsed.error}`);
    if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
      throw newBadRequest('the apply patch is not an object');
    }
    return { patch: parsed.value, duplicates: parsed.duplicates };
  }
  let decoded;
  try {
    decoded = decodeJson(text);
  } catch (error) {
    if (error instanceof JsonDecodeError) throw newBadRequest(`error decoding patch: ${error.message}`);
    throw error;
  }
  const patch = decoded.value;
  if (type === 'json' ? !Array.isArray(patch) : patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    throw newBadRequest(type === 'json' ? 'json patch must be an array of operations' : 'the patch is not a JSON object');
  }
  // A JSON patch's duplicate keys are inside its operations, not the object's.
  return { patch, duplicates: type === 'json' ? [] : decoded.duplicates };
}

export async function patchObject({ ctx, info, served, query, services, representation }: VerbScope): Promise<void> {
  const { store } = served;
  const mediaType = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  // Custom resources have no patch strategies of their own: upstream serves them no strategic merge
  // patch, on their subresources neither (its custom resource handler offers /status and /scale the
  // same patch types), though a Scale itself has strategies.
  const unstructured = !!store.resource.definition.unstructured;
  const type = PATCH_TYPES[mediaType];
  if (!type || (unstructured && type === 'strategic')) {
    throw newUnsupportedMediaType(Object.keys(PATCH_TYPES).filter((t) => !unstructured || PATCH_TYPES[t] !== 'strategic'));
  }
  const force = query.boolean('force');
  const { dryRun, fieldManager, fieldValidation } = parseWriteOptions(query, 'PatchOptions', services.domain, (manager) =>
    type === 'apply'
      ? manager
        ? []
        : [required(newPath('fieldManager'), 'is required for apply patch')]
      : force !== undefined
        ? [forbidden(newPath('force'), 'may not be specified for non-apply patch')]
        : [],
  );
  const { patch, duplicates } = parsePatch(type, (await readBody(ctx)).toString('utf8'));
  const request = {
    type,
    patch,
    duplicates,
    fieldValidation,
    dryRun,
    manager: fieldManager ?? managerOf(ctx),
    user: ctx.state.user,
    warn: warningSink(ctx),
    annotate: auditAnnotationSink(ctx),
    operationOptions: operationOptions('PatchOptions', services.domain, { dryRun: query.all('dryRun'), force, fieldManager, fieldValidation: query.string('fieldValidation') }),
    ...(force && { force }),
  };
  const { object, created, warnings } = info.subresource
    ? await store.patchSubresource(info.namespace, info.name, info.subresource, request)
    : await store.patch(info.namespace, info.name, request);
  addWarnings(ctx, warnings);
  await writeObject(ctx, created ? 201 : 200, object, { representation });
}
