// Credentials for end-to-end tests of authentication and authorization: a token file of several
// users, a client CA with client certificates (made with the openssl command), a service-account
// signing key, and requests that present a client certificate or impersonate.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ApiserverProcess, RequestOptions, Response } from './apiserver-process.js';

const run = promisify(execFile);

export interface TestUser {
  token: string;
  name: string;
  groups?: string[];
}

export interface AuthFiles {
  dir: string;
  tokenFile: string;
  /** The admin's token (system:masters). */
  admin: string;
  /** Token by user name. */
  tokens: Record<string, string>;
  clientCAFile: string;
  signingKeyFile: string;
  /** A client certificate and key signed by the client CA. */
  clientCert(commonName: string, organizations?: string[]): Promise<{ cert: string; key: string }>;
  /** A client certificate from another CA, which the server does not trust. */
  strangerCert(commonName: string): Promise<{ cert: string; key: string }>;
  cleanup(): Promise<void>;
}

/** Users: admin (system:masters) and each of `users`; a client CA; an RSA signing key. */
export async function authFiles(users: readonly TestUser[]): Promise<AuthFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-auth-'));
  const admin = `admin-${process.pid}-${Date.now()}`;
  const lines = [`${admin},admin,admin-uid,"system:masters"`, ...users.map((u) => `${u.token},${u.name},${u.name}-uid,"${(u.groups ?? []).join(',')}"`)];
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, `${lines.join('\n')}\n`);

  const newCA = async (name: string): Promise<{ crt: string; key: string }> => {
    const crt = join(dir, `${name}.crt`);
    const key = join(dir, `${name}.key`);
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', crt, '-days', '2', '-subj', `/CN=${name}`]);
    return { crt, key };
  };
  const ca = await newCA('client-ca');
  const stranger = await newCA('stranger-ca');
  let serial = 0;
  const issue = async (signer: { crt: string; key: string }, commonName: string, organizations: readonly string[]) => {
    const base = join(dir, `client-${++serial}`);
    const subject = `/CN=${commonName}${organizations.map((o) => `/O=${o}`).join('')}`;
    await run('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject]);
    await writeFile(`${base}.ext`, 'extendedKeyUsage=clientAuth\n');
    await run('openssl', ['x509', '-req', '-in', `${base}.csr`, '-CA', signer.crt, '-CAkey', signer.key, '-CAcreateserial', '-out', `${base}.crt`, '-days', '1', '-extfile', `${base}.ext`]);
    return { cert: await readFile(`${base}.crt`, 'utf8'), key: await readFile(`${base}.key`, 'utf8') };
  };

  const signingKeyFile = join(dir, 'sa.key');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await writeFile(signingKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));

  return {
    dir,
    tokenFile,
    admin,
    tokens: Object.fromEntries(users.map((u) => [u.name, u.token])),
    clientCAFile: ca.crt,
    signingKeyFile,
    clientCert: (commonName, organizations = []) => issue(ca, commonName, organizations),
    strangerCert: (commonName) => issue(stranger, commonName, []),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export type AuthRequest = RequestOptions;

/** A request as apiserver-process' request sends it (client certificates and repeated headers included). */
export function authRequest(server: ApiserverProcess, path: string, options: AuthRequest = {}): Promise<Response> {
  return server.request(path, options);
}

/** The Status message of a failed response, for assertions. */
export const messageOf = (response: Response): string => (JSON.parse(response.body) as { message?: string }).message ?? '';
