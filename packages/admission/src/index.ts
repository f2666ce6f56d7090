// Admission: the chain of plugins a server runs on writes (upstream's names and order, chosen by
// --enable-admission-plugins and --disable-admission-plugins), and the plugins that need nothing
// of the server's but what they are given.
export { AdmissionChain, type ChainLogger } from './chain.js';
export type { AdmissionPlugin } from './plugin.js';
export { DEFAULT_OFF_PLUGINS, ORDERED_PLUGINS, PLUGIN_SUPPORT, type PluginName, type PluginSupport } from './plugin-names.js';
export { AdmissionPluginFlagsError, enabledPlugins, type AdmissionPluginFlags } from './plugin-options.js';
export { alwaysAdmit, alwaysDeny } from './plugins/always.js';
export { namespaceLifecycle, type NamespaceReader } from './plugins/namespace-lifecycle.js';
export { taintNodesByCondition } from './plugins/taint-nodes-by-condition.js';
export { AdmissionRequestView, type RequestViewSources } from './request-view.js';
