// --enable-admission-plugins and --disable-admission-plugins as kube-apiserver 1.28 reads them: the
// plugins enabled are upstream's default set, plus those enabled, less those disabled, always in
// upstream's order; a name upstream does not know, or one in both flags, is refused in its words.
import { DEFAULT_OFF_PLUGINS, ORDERED_PLUGINS, PLUGIN_SUPPORT, type PluginName } from './plugin-names.js';

export interface AdmissionPluginFlags {
  /** --enable-admission-plugins, as given. */
  enable: readonly string[];
  /** --disable-admission-plugins, as given. */
  disable: readonly string[];
}

/** A refusal of the flags: every problem, as upstream's options validation lists them. */
export class AdmissionPluginFlagsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join(', '));
    this.name = 'AdmissionPluginFlagsError';
  }
}

const known: ReadonlySet<string> = new Set(ORDERED_PLUGINS);

/**
 * The plugins the flags enable, in the order they run. Throws AdmissionPluginFlagsError for a name
 * upstream does not have, a name in both flags, or a plugin that would act on what this server
 * serves and does not exist here (see PLUGIN_SUPPORT): better refused at start than missing.
 */
export function enabledPlugins({ enable, disable }: AdmissionPluginFlags): PluginName[] {
  const problems: string[] = [];
  for (const name of enable) if (!known.has(name)) problems.push(`enable-admission-plugins plugin "${name}" is unknown`);
  for (const name of disable) if (!known.has(name)) problems.push(`disable-admission-plugins plugin "${name}" is unknown`);
  const both = [...new Set(enable)].filter((name) => disable.includes(name)).sort();
  if (both.length) problems.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  const off = new Set<string>([...DEFAULT_OFF_PLUGINS, ...disable]);
  for (const name of enable) off.delete(name);
  const enabled = ORDERED_PLUGINS.filter((name) => !off.has(name));
  for (const name of enabled) {
    if (PLUGIN_SUPPORT[name] === 'not-implemented') problems.push(`admission plugin "${name}" is not implemented by this server: leave it out of --enable-admission-plugins`);
  }
  if (problems.length) throw new AdmissionPluginFlagsError(problems);
  return enabled;
}
