// --feature-gates: `Name=true,Other=false` over the gates this server knows, with their defaults.
import { FlagError } from '@plat/apimachinery';

interface Gate {
  default: boolean;
  stage: 'alpha' | 'beta' | 'GA';
}

/** The gates and their defaults (alpha off, beta on unless upstream says otherwise), as in Kubernetes 1.28. */
export const featureGates = {
  APIListChunking: { default: true, stage: 'beta' },
  APIResponseCompression: { default: true, stage: 'beta' },
  // Beta but off by default in 1.28; its API versions need --runtime-config as well.
  ValidatingAdmissionPolicy: { default: false, stage: 'beta' },
  WatchList: { default: false, stage: 'alpha' },
} as const satisfies Record<string, Gate>;

/** The gates as --help lists them: `Name=true|false (BETA - default=true)`, by name. */
export function featureGatesHelp(): string {
  return Object.entries(featureGates as Record<string, Gate>)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, gate]) => `${name}=true|false (${gate.stage.toUpperCase()} - default=${gate.default})`)
    .join(', ');
}

export type FeatureGates = Record<keyof typeof featureGates, boolean>;

export function parseFeatureGates(pairs: readonly string[]): FeatureGates {
  const gates = Object.fromEntries(Object.entries(featureGates).map(([name, gate]) => [name, gate.default])) as FeatureGates;
  for (const pair of pairs) {
    if (!pair.trim()) continue;
    const [name = '', value, ...rest] = pair.split('=').map((part) => part.trim());
    if (value === undefined || rest.length) throw new FlagError(`invalid value ${JSON.stringify(pair)} for flag --feature-gates: missing bool value for ${name}`);
    if (!Object.hasOwn(featureGates, name)) throw new FlagError(`invalid value ${JSON.stringify(pair)} for flag --feature-gates: unrecognized feature gate: ${name}`);
    if (value !== 'true' && value !== 'false') {
      throw new FlagError(`invalid value ${JSON.stringify(pair)} for flag --feature-gates: invalid value of ${name}=${value}, err: must be true or false`);
    }
    gates[name as keyof FeatureGates] = value === 'true';
  }
  return gates;
}
