// /version: the build's version in kube-apiserver's shape, which kubectl version parses.
import type { Handler } from '@plat/filters';

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

const goArch: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

/** The Kubernetes version whose API this server implements, plus what is known of the build. */
export function versionInfo(build: Partial<Pick<VersionInfo, 'gitCommit' | 'gitTreeState' | 'buildDate'>> = {}): VersionInfo {
  return {
    major: '1',
    minor: '28',
    gitVersion: 'v1.28.0-plat',
    // Upstream's values for a build that does not stamp them.
    gitCommit: build.gitCommit || '$Format:%H$',
    gitTreeState: build.gitTreeState || '',
    buildDate: build.buildDate || '1970-01-01T00:00:00Z',
    goVersion: process.version,
    compiler: 'node',
    platform: `${process.platform}/${goArch[process.arch] ?? process.arch}`,
  };
}

export function versionHandler(info: VersionInfo): Handler {
  // Indented as upstream writes it.
  const body = JSON.stringify(info, null, 2);
  return (ctx) => {
    ctx.status = 200;
    ctx.body = body;
    ctx.set('Content-Type', 'application/json');
  };
}
