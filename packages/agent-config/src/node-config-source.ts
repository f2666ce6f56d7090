// SerializedNodeConfigSource: the record the agent keeps of a checkpointed dynamic configuration's source (a ConfigMap).
import { decodeKind } from './decode/decode-kind.js';
import { t, type Infer } from './decode/schema.js';
import { SERIALIZED_NODE_CONFIG_SOURCE_KIND } from './group.js';

export const serializedNodeConfigSourceSchema = t.object({
  apiVersion: t.string(),
  kind: t.string(),
  source: t.object({
    configMap: t.object({
      namespace: t.string(),
      name: t.string(),
      uid: t.string(),
      resourceVersion: t.string(),
      /** The ConfigMap key that holds the NodeAgentConfiguration. */
      agentConfigKey: t.string(),
    }),
  }),
});

export type SerializedNodeConfigSource = Infer<typeof serializedNodeConfigSourceSchema>;

export function decodeSerializedNodeConfigSource(text: string): SerializedNodeConfigSource {
  return decodeKind(text, SERIALIZED_NODE_CONFIG_SOURCE_KIND, serializedNodeConfigSourceSchema) as SerializedNodeConfigSource;
}
