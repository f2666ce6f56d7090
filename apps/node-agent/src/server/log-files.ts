// /logs/: the node's log directory read-only (the kubelet serves /var/log/), a directory as a list of
// links and a file as its bytes. Paths are resolved inside the directory; nothing above it is reached.
import { createReadStream } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join, resolve, sep } from 'node:path';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Serves `relative` (the path below /logs/, URL-decoded) from `root`. */
export async function serveLogPath(root: string, relative: string, res: ServerResponse): Promise<void> {
  const base = await realpath(root).catch(() => resolve(root));
  const target = resolve(base, `.${sep}${relative}`);
  if (target !== base && !target.startsWith(base + sep)) return void plain(res, 404, '404 page not found\n');
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    return void plain(res, 404, '404 page not found\n');
  }
  const info = await stat(real);
  if (info.isDirectory()) {
    const entries = await readdir(real, { withFileTypes: true });
    const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
    const links = names.map((name) => `<a href="${escapeHtml(encodeURI(name))}">${escapeHtml(name)}</a>\n`).join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return void res.end(`<pre>\n${links}</pre>\n`);
  }
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': info.size });
  const stream = createReadStream(join(real));
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

export function plain(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(body);
}
