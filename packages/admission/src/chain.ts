// The chain of admission plugins a server runs on every write (the registry's Admission): the
// enabled plugins in upstream's order, mutating phases first, then, after the kind's validation,
// validating phases. A plugin is provided once the server has built what it needs (the catalog,
// informers); until every enabled plugin this server serves has been, writes fail closed with a
// 500 rather than go through unchecked.
import { newInternalError } from '@plat/apimachinery';
import type { Admission, AdmissionAttributes, KubeObject } from '@plat/registry';
import type { AdmissionPlugin } from './plugin.js';
import { PLUGIN_SUPPORT, type PluginName } from './plugin-names.js';

export interface ChainLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

export class AdmissionChain implements Admission {
  /** The enabled plugins that run here, in order, and each one's implementation once provided. */
  private readonly slots: { name: PluginName; plugin?: AdmissionPlugin }[];

  constructor(
    enabled: readonly PluginName[],
    private readonly logger?: ChainLogger,
  ) {
    this.slots = enabled.filter((name) => PLUGIN_SUPPORT[name] === 'served').map((name) => ({ name }));
  }

  /** The names of the plugins that run, in order. */
  get names(): PluginName[] {
    return this.slots.map((slot) => slot.name);
  }

  /** Enabled plugins not provided yet: writes fail while there are any. */
  get missing(): PluginName[] {
    return this.slots.filter((slot) => !slot.plugin).map((slot) => slot.name);
  }

  /** Whether `name` runs (enabled and served here): the server builds only those. */
  runs(name: PluginName): boolean {
    return this.slots.some((slot) => slot.name === name);
  }

  /** Gives the enabled plugin of its name its implementation; a plugin not enabled is left out. */
  provide(plugin: AdmissionPlugin): void {
    const slot = this.slots.find((candidate) => candidate.name === plugin.name);
    if (!slot) return;
    if (slot.plugin) throw new Error(`admission plugin ${plugin.name} provided twice`);
    slot.plugin = plugin;
  }

  async mutate(attributes: AdmissionAttributes): Promise<KubeObject | undefined> {
    let current = attributes;
    let changed: KubeObject | undefined;
    for (const slot of this.slots) {
      const plugin = this.ready(slot);
      if (!plugin.mutate) continue;
      const pending = plugin.mutate(current);
      const result = pending instanceof Promise ? await pending : pending;
      if (result && result !== current.object) {
        changed = result;
        // The next plugin sees the object as this one left it.
        current = { ...current, object: result };
      }
    }
    return changed;
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    for (const slot of this.slots) {
      const plugin = this.ready(slot);
      if (!plugin.validate) continue;
      const pending = plugin.validate(attributes);
      if (pending) await pending;
    }
  }

  private ready(slot: { name: PluginName; plugin?: AdmissionPlugin }): AdmissionPlugin {
    if (slot.plugin) return slot.plugin;
    const error = new Error(`admission plugin ${slot.name} is enabled and not ready: the write is refused rather than let through unchecked`);
    this.logger?.error({ plugin: slot.name }, error.message);
    throw newInternalError(error);
  }
}
