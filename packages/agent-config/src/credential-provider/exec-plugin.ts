// Running one credential provider plugin: its args and env (over the host's), the request on stdin, the response from stdout, under a timeout.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { formatDuration } from '@plat/apimachinery';
import { REQUEST_KIND } from './api-versions.js';
import { decodeCredentialProviderResponse, type CredentialProviderResponse } from './response.js';
import type { ExecEnvVar } from './schema.js';

/** How long a plugin may run before it is killed, as kubelet allows. */
export const DEFAULT_PLUGIN_TIMEOUT_MS = 60_000;

export interface ExecPluginOptions {
  name: string;
  binDir: string;
  apiVersion: string;
  args?: readonly string[];
  env?: readonly ExecEnvVar[];
  timeoutMs?: number;
  /** The environment the plugin's variables are added to; the agent's own by default. */
  hostEnv?: NodeJS.ProcessEnv;
}

/** A plugin that could not be run, failed, timed out or answered badly. */
export class CredentialPluginError extends Error {
  override readonly name = 'CredentialPluginError';
}

/** Runs the plugin for one image and returns its decoded response; throws CredentialPluginError. */
export function execPlugin(options: ExecPluginOptions, image: string): Promise<CredentialProviderResponse> {
  const { name, binDir, apiVersion } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PLUGIN_TIMEOUT_MS;
  const fail = (why: string): CredentialPluginError => new CredentialPluginError(`credential provider plugin ${name} for image ${image}: ${why}`);
  const env: NodeJS.ProcessEnv = { ...(options.hostEnv ?? process.env) };
  // The configuration's variables win over the host's of the same name.
  for (const variable of options.env ?? []) if (variable.name) env[variable.name] = variable.value ?? '';
  const request = JSON.stringify({ apiVersion, kind: REQUEST_KIND, image });

  return new Promise((resolve, reject) => {
    // Its own process group, so that a timeout kills whatever the plugin started too.
    const child = spawn(join(binDir, name), [...(options.args ?? [])], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const timer = setTimeout(() => {
      killGroup(child.pid);
      settle(() => reject(fail(`timed out after ${formatDuration(timeoutMs)}`)));
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // A plugin that exits without reading its stdin is judged by its exit status, not by the broken pipe.
    child.stdin.on('error', () => undefined);
    child.stdin.end(request);
    child.on('error', (error) => settle(() => reject(fail(`could not run ${join(binDir, name)}: ${error.message}`))));
    child.on('close', (code, signal) => {
      settle(() => {
        if (code !== 0) {
          const status = signal ? `killed by ${signal}` : `exit status ${code}`;
          return reject(fail(`${status}${stderr.trim() ? `: ${stderr.trim()}` : ''}`));
        }
        try {
          resolve(decodeCredentialProviderResponse(stdout, apiVersion));
        } catch (error) {
          reject(fail((error as Error).message));
        }
      });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
