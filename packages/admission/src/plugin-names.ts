// kube-apiserver 1.28's admission plugins: their names in the order they run (upstream's
// AllOrderedPlugins: whatever the flags' order, the chain runs in this one), which are off unless
// enabled (DefaultOffAdmissionPlugins), and which this server has.

/** Upstream's recommended order, which is the chain's order. */
export const ORDERED_PLUGINS = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'SecurityContextDeny',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  // Webhooks, quota and the deny plugin last, as upstream has them.
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
] as const;

export type PluginName = (typeof ORDERED_PLUGINS)[number];

/** Off unless --enable-admission-plugins names them (upstream's DefaultOffAdmissionPlugins). */
export const DEFAULT_OFF_PLUGINS: ReadonlySet<PluginName> = new Set<PluginName>([
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceExists',
  'SecurityContextDeny',
  'LimitPodHardAntiAffinityTopology',
  'NodeRestriction',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodNodeSelector',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'OwnerReferencesPermissionEnforcement',
  'DenyServiceExternalIPs',
  'AlwaysDeny',
]);

/**
 * What this server does with each plugin enabled:
 * - `served`: the plugin runs here;
 * - `nothing-to-admit`: it acts only on kinds this server does not serve (pods, persistent volume
 *   claims, certificate signing requests, ...), so it has nothing to do; enabling it is allowed, as
 *   upstream's default set includes most of them;
 * - `not-implemented`: it would act on what this server serves, and does not exist here yet: the
 *   server refuses to start with it enabled, rather than run without it.
 */
export type PluginSupport = 'served' | 'nothing-to-admit' | 'not-implemented';

export const PLUGIN_SUPPORT: Readonly<Record<PluginName, PluginSupport>> = {
  AlwaysAdmit: 'served',
  NamespaceAutoProvision: 'not-implemented',
  NamespaceLifecycle: 'served',
  NamespaceExists: 'not-implemented',
  SecurityContextDeny: 'nothing-to-admit',
  LimitPodHardAntiAffinityTopology: 'nothing-to-admit',
  LimitRanger: 'nothing-to-admit',
  ServiceAccount: 'nothing-to-admit',
  NodeRestriction: 'not-implemented',
  TaintNodesByCondition: 'served',
  AlwaysPullImages: 'nothing-to-admit',
  ImagePolicyWebhook: 'nothing-to-admit',
  PodSecurity: 'nothing-to-admit',
  PodNodeSelector: 'nothing-to-admit',
  Priority: 'nothing-to-admit',
  DefaultTolerationSeconds: 'nothing-to-admit',
  PodTolerationRestriction: 'nothing-to-admit',
  EventRateLimit: 'not-implemented',
  ExtendedResourceToleration: 'nothing-to-admit',
  DefaultStorageClass: 'nothing-to-admit',
  StorageObjectInUseProtection: 'nothing-to-admit',
  OwnerReferencesPermissionEnforcement: 'not-implemented',
  PersistentVolumeClaimResize: 'nothing-to-admit',
  RuntimeClass: 'nothing-to-admit',
  CertificateApproval: 'nothing-to-admit',
  CertificateSigning: 'nothing-to-admit',
  ClusterTrustBundleAttest: 'nothing-to-admit',
  CertificateSubjectRestriction: 'nothing-to-admit',
  DefaultIngressClass: 'nothing-to-admit',
  DenyServiceExternalIPs: 'nothing-to-admit',
  // No webhook configuration can exist until their kinds are served (the admission webhooks' issue):
  // until then the two webhook plugins have none to call.
  MutatingAdmissionWebhook: 'nothing-to-admit',
  ValidatingAdmissionPolicy: 'served',
  ValidatingAdmissionWebhook: 'nothing-to-admit',
  ResourceQuota: 'nothing-to-admit',
  AlwaysDeny: 'served',
};
