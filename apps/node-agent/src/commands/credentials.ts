// `plat-agent credentials IMAGE --config FILE --bin-dir DIR`: the auth map the matching credential providers give for an image, as JSON.
import { readFile } from 'node:fs/promises';
import {
  BinDirError,
  CredentialProviderKeyring,
  DecodeError,
  checkProviderBinaries,
  decodeCredentialProviderConfig,
  validateCredentialProviderConfig,
  type CredentialProviderConfig,
} from '@plat/agent-config';
import { count, printProblems, type Output } from '../output.js';

export interface CredentialsArgs {
  image: string;
  configFile: string;
  binDir: string;
  pluginTimeoutMs: number;
}

/** Prints the merged auth map (`{}` when nothing matched or every provider failed); exit 1 when a provider failed. */
export async function credentialsCommand(args: CredentialsArgs, out: Output): Promise<number> {
  const config = await loadConfig(args, out);
  if (!config) return 1;
  const keyring = new CredentialProviderKeyring(config, { binDir: args.binDir, timeoutMs: args.pluginTimeoutMs });
  const { auth, errors } = await keyring.lookup(args.image);
  out.stdout(`${JSON.stringify(auth, null, 2)}\n`);
  for (const error of errors) out.stderr(`Error: ${error.message}\n`);
  return errors.length ? 1 : 0;
}

async function loadConfig({ configFile, binDir }: CredentialsArgs, out: Output): Promise<CredentialProviderConfig | undefined> {
  let text: string;
  try {
    text = await readFile(configFile, 'utf8');
  } catch (error) {
    out.stderr(`Error: could not read the credential provider configuration: ${(error as Error).message}\n`);
    return undefined;
  }
  let config: CredentialProviderConfig;
  try {
    config = decodeCredentialProviderConfig(text);
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    printProblems(out, `${configFile} could not be decoded as a CredentialProviderConfig (${count(error.problems)})`, error.problems);
    return undefined;
  }
  let errors;
  try {
    errors = [...validateCredentialProviderConfig(config), ...checkProviderBinaries(config, binDir)];
  } catch (error) {
    if (!(error instanceof BinDirError)) throw error;
    out.stderr(`Error: ${error.message}\n`);
    return undefined;
  }
  if (errors.length) {
    printProblems(out, `${configFile} is not a valid CredentialProviderConfig (${count(errors)})`, errors);
    return undefined;
  }
  return config;
}
