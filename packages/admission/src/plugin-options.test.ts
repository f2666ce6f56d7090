import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionPluginFlagsError, enabledPlugins } from './plugin-options.js';

const cases: { name: string; enable?: string[]; disable?: string[]; enabled?: string[]; refused?: string[] }[] = [
  {
    name: "upstream's default set, in upstream's order",
    enabled: [
      'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'TaintNodesByCondition', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds',
      'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning',
      'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook', 'ResourceQuota',
    ],
  },
  {
    name: "enabled ones join in upstream's order, whatever the flag's; disabled ones leave",
    enable: ['AlwaysDeny', 'AlwaysAdmit'],
    disable: ['LimitRanger', 'ServiceAccount', 'TaintNodesByCondition', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning', 'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota'],
    enabled: ['AlwaysAdmit', 'NamespaceLifecycle', 'ValidatingAdmissionPolicy', 'AlwaysDeny'],
  },
  {
    name: 'unknown names and overlaps, in upstream\'s words, all at once',
    enable: ['Bogus', 'AlwaysDeny', 'NamespaceLifecycle'],
    disable: ['NamespaceLifecycle', 'Other', 'AlwaysDeny'],
    refused: [
      'enable-admission-plugins plugin "Bogus" is unknown',
      'disable-admission-plugins plugin "Other" is unknown',
      '[AlwaysDeny NamespaceLifecycle] in enable-admission-plugins and disable-admission-plugins overlapped',
    ],
  },
  {
    name: 'a plugin that would act on what this server serves and is not here: refused, not skipped',
    enable: ['NodeRestriction', 'EventRateLimit'],
    refused: [
      'admission plugin "NodeRestriction" is not implemented by this server: leave it out of --enable-admission-plugins',
      'admission plugin "EventRateLimit" is not implemented by this server: leave it out of --enable-admission-plugins',
    ],
  },
];

for (const { name, enable = [], disable = [], enabled, refused } of cases) {
  test(`admission plugin flags: ${name}`, () => {
    if (refused) {
      assert.throws(() => enabledPlugins({ enable, disable }), (error: unknown) => error instanceof AdmissionPluginFlagsError && assert.deepEqual(error.problems, refused) === undefined);
    } else {
      assert.deepEqual(enabledPlugins({ enable, disable }), enabled);
    }
  });
}
