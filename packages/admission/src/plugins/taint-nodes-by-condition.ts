// TaintNodesByCondition, as upstream's: a Node is created with the not-ready taint (NoSchedule), so
// that nothing is scheduled onto it before its agent has reported it Ready; the node lifecycle
// controller takes the taint off once the Node's Ready condition is True.
import type { KubeObject } from '@plat/registry';
import type { AdmissionPlugin } from '../plugin.js';

interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

/** `node.kubernetes.io/not-ready` under the k8s.io names, `node.<domain>/not-ready` under ours. */
export const notReadyTaintKey = (domain: string): string => `node.${domain === 'k8s.io' ? 'kubernetes.io' : domain}/not-ready`;

export function taintNodesByCondition(domain: string): AdmissionPlugin {
  const key = notReadyTaintKey(domain);
  return {
    name: 'TaintNodesByCondition',
    mutate({ operation, resource, subresource, object }) {
      if (operation !== 'CREATE' || subresource || resource.group !== '' || resource.resource !== 'nodes' || !object) return;
      const spec = (object as KubeObject & { spec?: { taints?: Taint[] } }).spec;
      // Upstream's MatchTaint: the same key and effect, whatever the value.
      if (spec?.taints?.some((taint) => taint.key === key && taint.effect === 'NoSchedule')) return;
      return { ...object, spec: { ...spec, taints: [...(spec?.taints ?? []), { key, effect: 'NoSchedule' }] } } as KubeObject;
    },
  };
}
