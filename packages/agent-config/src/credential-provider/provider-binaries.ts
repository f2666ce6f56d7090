// The check that every provider's executable is in the agent's provider binary directory.
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { invalid, newPath, type FieldError } from '@plat/apimachinery';
import type { CredentialProviderConfig } from './schema.js';

/** Thrown when the binary directory itself is missing; per-provider problems are field errors instead. */
export class BinDirError extends Error {
  override readonly name = 'BinDirError';
}

/** An error for each provider whose `name` is not an executable file in binDir. */
export function checkProviderBinaries(config: CredentialProviderConfig, binDir: string): FieldError[] {
  let dir;
  try {
    dir = statSync(binDir);
  } catch {
    throw new BinDirError(`plugin binary directory ${binDir} did not exist`);
  }
  if (!dir.isDirectory()) throw new BinDirError(`plugin binary directory ${binDir} is not a directory`);
  const errors: FieldError[] = [];
  for (const [i, provider] of (config.providers ?? []).entries()) {
    // A name that is not a plain file name has its own validation error.
    if (!provider.name || provider.name.includes('/') || provider.name === '.' || provider.name === '..') continue;
    const binary = join(binDir, provider.name);
    const at = newPath('providers').index(i).child('name');
    try {
      if (!statSync(binary).isFile()) errors.push(invalid(at, provider.name, `plugin binary ${binary} is not a file`));
      else accessSync(binary, constants.X_OK);
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      errors.push(invalid(at, provider.name, missing ? `plugin binary executable ${binary} did not exist` : `plugin binary ${binary} is not executable`));
    }
  }
  return errors;
}
