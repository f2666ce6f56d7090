// Kubernetes' order of API versions (upstream's kube-aware version comparison): GA versions first,
// then beta, then alpha, each by major then minor number, highest first; versions not of the form
// v<major>[alpha|beta<minor>] last, by name. Discovery lists a group's versions in this order and
// prefers the first.
const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

const STABILITY: Record<string, number> = { '': 3, beta: 2, alpha: 1 };

interface Parsed {
  stability: number;
  major: number;
  minor: number;
}

function parse(version: string): Parsed | undefined {
  const match = KUBE_VERSION.exec(version);
  if (!match) return undefined;
  return { stability: STABILITY[match[2] ?? '']!, major: Number(match[1]), minor: Number(match[3] ?? 0) };
}

/** Negative when `a` comes before (is preferred to) `b`. */
export function compareKubeVersions(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) return pb.stability - pa.stability || pb.major - pa.major || pb.minor - pa.minor;
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
