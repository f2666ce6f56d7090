// Credential provider plugins for tests: small node and shell scripts written into a folder, with a log of their runs.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Writes an executable file and returns its path. */
export async function writeExecutable(dir: string, name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  await chmod(file, 0o755);
  return file;
}

/**
 * A node script that reads the request from stdin into `request` and runs `body`, which may call
 * `respond(object)`. Each run appends the request, its args and $PLUGIN_VAR to the file named by
 * $PLUGIN_LOG when that is set.
 */
export function nodePlugin(body: string): string {
  return `#!${process.execPath}
const { appendFileSync } = require('node:fs');
const respond = (object) => process.stdout.write(JSON.stringify(object));
let input = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => (input += chunk)).on('end', () => {
  const request = JSON.parse(input);
  if (process.env.PLUGIN_LOG) {
    appendFileSync(process.env.PLUGIN_LOG, JSON.stringify({ request, args: process.argv.slice(2), pluginVar: process.env.PLUGIN_VAR ?? null }) + '\\n');
  }
${body}
});
`;
}

/** A plugin that answers every request with this response. */
export function respondingPlugin(response: object): string {
  return nodePlugin(`  respond(${JSON.stringify(response)});`);
}

/** A shell script plugin. */
export function shellPlugin(body: string): string {
  return `#!/bin/sh\n${body}\n`;
}

export interface PluginRun {
  request: { apiVersion: string; kind: string; image: string };
  args: string[];
  pluginVar: string | null;
}

/** The runs a $PLUGIN_LOG recorded, oldest first. */
export async function pluginRuns(logFile: string): Promise<PluginRun[]> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as PluginRun);
}
