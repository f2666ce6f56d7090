// CredentialProviderConfig's fields (spec section 2.1): the exec plugins that supply registry credentials for matching images.
import { t, type Infer } from '../decode/schema.js';

const execEnvVar = t.object({ name: t.string(), value: t.string() });

const credentialProvider = t.object({
  name: t.string(),
  matchImages: t.list(t.string()),
  defaultCacheDuration: t.duration(),
  apiVersion: t.string(),
  args: t.list(t.string()),
  env: t.list(execEnvVar),
});

export const credentialProviderConfigSchema = t.object({
  apiVersion: t.string(),
  kind: t.string(),
  providers: t.list(credentialProvider),
});

export type CredentialProviderConfig = Infer<typeof credentialProviderConfigSchema>;
export type CredentialProvider = Infer<typeof credentialProvider>;
export type ExecEnvVar = Infer<typeof execEnvVar>;
