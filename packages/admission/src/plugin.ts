// What an admission plugin is: a name from upstream's list, and a mutating phase, a validating
// phase, or both, each given the write's attributes.
import type { AdmissionAttributes } from '@plat/registry';
import type { KubeObject } from '@plat/registry';
import type { PluginName } from './plugin-names.js';

export interface AdmissionPlugin {
  readonly name: PluginName;
  /**
   * The mutating phase: the object changed (a new object, `attributes.object` left as it was), or
   * nothing where it has nothing to change. Throws a StatusError to refuse the write.
   */
  mutate?(attributes: AdmissionAttributes): Promise<KubeObject | void> | KubeObject | void;
  /** The validating phase, on the object as it will be stored: throws a StatusError to refuse. */
  validate?(attributes: AdmissionAttributes): Promise<void> | void;
}
