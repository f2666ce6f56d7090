// `make run`: one apiserver replica on the embedded backend, with an admin token and a kubeconfig
// that kubectl can use at once, all kept in one folder.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { resolve, join } from 'node:path';
import { ensureSelfSignedCert } from '@plat/apiserver';

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, ...value] = arg.replace(/^--/, '').split('=');
    return [name, value.join('=')];
  }),
);
const dir = resolve(args.dir || '.run');
const port = Number(args.port || 6443);
const apiDomain = args['api-domain'] || 'plat.io';
const certDir = join(dir, 'certs');
const tokenFile = join(dir, 'tokens.csv');
const kubeconfig = join(dir, 'kubeconfig');
const server = `https://127.0.0.1:${port}`;

await mkdir(certDir, { recursive: true });
if (!existsSync(tokenFile)) {
  await writeFile(tokenFile, `${randomBytes(24).toString('base64url')},admin,admin-uid,"system:masters"\n`, { mode: 0o600 });
}
const token = (await readFile(tokenFile, 'utf8')).split(',')[0];
// The server reuses these files: the kubeconfig can name the CA before the server starts.
const { ca } = await ensureSelfSignedCert({ certDir, bindAddress: '127.0.0.1' });
await writeFile(
  kubeconfig,
  `apiVersion: v1
kind: Config
clusters:
- name: plat-local
  cluster:
    server: ${server}
    certificate-authority-data: ${Buffer.from(ca).toString('base64')}
users:
- name: admin
  user:
    token: ${token}
contexts:
- name: plat-local
  context:
    cluster: plat-local
    user: admin
current-context: plat-local
`,
  { mode: 0o600 },
);

const child = spawn(
  resolve('bin/plat-apiserver'),
  [
    '--storage-backend=memory',
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${certDir}`,
    `--token-auth-file=${tokenFile}`,
    `--api-domain=${apiDomain}`,
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

const ready = () =>
  new Promise((done) => {
    const req = request(`${server}/readyz`, { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      done(res.statusCode === 200);
    });
    req.on('error', () => done(false));
    req.end();
  });
for (let attempt = 0; attempt < 100 && !(await ready()); attempt++) {
  await new Promise((r) => setTimeout(r, 100));
}
process.stderr.write(`
plat-apiserver is serving at ${server} (embedded storage; data is kept in memory only).
  kubeconfig:  ${kubeconfig}
  admin token: ${tokenFile}
Try:
  kubectl --kubeconfig ${kubeconfig} get --raw '/readyz?verbose'
  kubectl --kubeconfig ${kubeconfig} version
Stop with Ctrl-C.
`);
