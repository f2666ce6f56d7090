// --etcd-cafile, --etcd-certfile, --etcd-keyfile: read and checked at start-up, so that a missing
// file, a file that is not what its flag needs, or a key that does not match its certificate stops
// the server with a sentence naming the flag and the file, rather than as failed handshakes later.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface EtcdTlsFiles {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

export interface EtcdTlsMaterial {
  ca?: string;
  cert?: string;
  key?: string;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function read(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`--${flag}: cannot read ${path}: ${message(error)}`);
  }
}

/** The PEM certificates in `pem`, each parsed; at least one. */
function certificates(flag: string, path: string, pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw new Error(`--${flag}: no PEM certificate in ${path}`);
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch (error) {
      throw new Error(`--${flag}: ${path}: not a valid certificate: ${message(error)}`);
    }
  });
}

/** Reads and checks the files; the material for the etcd client's TLS connections. */
export async function loadEtcdTls(files: EtcdTlsFiles, now = Date.now()): Promise<EtcdTlsMaterial> {
  const material: EtcdTlsMaterial = {};
  if (files.caFile) {
    material.ca = await read('etcd-cafile', files.caFile);
    for (const ca of certificates('etcd-cafile', files.caFile, material.ca)) {
      if (!ca.ca) throw new Error(`--etcd-cafile: ${files.caFile}: ${ca.subject.replace(/\n/g, ', ')} is not a CA certificate`);
    }
  }
  if (files.certFile && files.keyFile) {
    material.cert = await read('etcd-certfile', files.certFile);
    material.key = await read('etcd-keyfile', files.keyFile);
    const [leaf] = certificates('etcd-certfile', files.certFile, material.cert);
    let key: KeyObject;
    try {
      key = createPrivateKey(material.key);
    } catch (error) {
      throw new Error(`--etcd-keyfile: ${files.keyFile}: not a PEM private key: ${message(error)}`);
    }
    if (!leaf!.checkPrivateKey(key)) {
      throw new Error(`--etcd-keyfile: ${files.keyFile} does not match the certificate in --etcd-certfile ${files.certFile}`);
    }
    if (Date.parse(leaf!.validTo) < now) throw new Error(`--etcd-certfile: ${files.certFile} expired on ${leaf!.validTo}`);
    if (Date.parse(leaf!.validFrom) > now) throw new Error(`--etcd-certfile: ${files.certFile} is not valid before ${leaf!.validFrom}`);
  }
  return material;
}
