// Conversion between the versions of a kind whose objects are stored in one version and served in
// several (a custom resource's), as upstream's CR converter: a batch of objects in, the same objects
// in another version out. Asynchronous and batched because a conversion webhook is an HTTPS call
// that takes a list's objects at once (a ConversionReview); the None strategy is the first converter.
import type { KubeObject } from './definition.js';

export interface Converter {
  /**
   * `objects` in the version `apiVersion` names ("<group>/<version>"), in the same order. The given
   * objects are not changed (they may be a watch cache's, shared); what comes back may share parts
   * with them, so is not to be changed either, and an object already in that version may come back
   * as itself. Fails (rejects) for the whole batch, with upstream's message.
   */
  convert(objects: readonly KubeObject[], apiVersion: string): Promise<KubeObject[]>;
}

/**
 * Conversion None (upstream's nopConverter, a CustomResourceDefinition's default): only apiVersion
 * changes, to the one asked for; kind and every field stay as they are.
 */
export const noneConverter: Converter = {
  convert: (objects, apiVersion) => Promise.resolve(objects.map((object) => (object.apiVersion === apiVersion ? object : { ...object, apiVersion }))),
};

/**
 * A converter that first checks, as upstream's CR converter does, that the version asked for and
 * each object's own are versions of the kind (`apiVersions`), and refuses the batch otherwise.
 */
export function versionCheckedConverter(apiVersions: readonly string[], converter: Converter): Converter {
  const valid = new Set(apiVersions);
  return {
    convert(objects, apiVersion) {
      if (!valid.has(apiVersion)) return Promise.reject(new Error(`request to convert CR to an invalid group/version: ${apiVersion}`));
      const invalid = objects.findIndex((object) => !valid.has(String(object.apiVersion ?? '')));
      if (invalid >= 0) {
        const from = String(objects[invalid]!.apiVersion ?? '');
        // One object is converted as itself; more as upstream converts a list, by index.
        const message =
          objects.length === 1
            ? `request to convert CR from an invalid group/version: ${from}`
            : `request to convert CR list failed, list index ${invalid} has invalid group/version: ${from}`;
        return Promise.reject(new Error(message));
      }
      return converter.convert(objects, apiVersion);
    },
  };
}
