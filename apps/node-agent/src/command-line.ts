// plat-agent's command line: the flags, the `credentials` subcommand, and which command they ask for.
import { isIP } from 'node:net';
import { parseDuration } from '@plat/apimachinery';

/** A command-line mistake: one line naming the flag or argument; the process exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type Command =
  | { kind: 'help' }
  | { kind: 'validate'; configFile: string }
  | { kind: 'dump-defaults' }
  | { kind: 'credentials'; image: string; configFile: string; binDir: string; pluginTimeoutMs: number }
  | { kind: 'run'; configFile: string; kubeconfig: string; hostnameOverride?: string; certDir: string; apiDomain: string; nodeIP?: string };

interface FlagSpec {
  bool?: boolean;
  help: string;
  valueName?: string;
}

const flags: Record<string, FlagSpec> = {
  config: { help: 'The configuration file: a NodeAgentConfiguration, or for `credentials` a CredentialProviderConfig.', valueName: 'file' },
  validate: {
    bool: true,
    help: 'Print the defaulted configuration as YAML and exit 0, or print every problem (unknown and duplicate fields are warnings) and exit 1 on an error.',
  },
  'dump-defaults': { bool: true, help: 'Print a fully defaulted configuration and exit.' },
  'bin-dir': { help: 'For `credentials`: the directory holding the credential provider executables.', valueName: 'dir' },
  'image-credential-provider-bin-dir': { help: 'Same as --bin-dir.', valueName: 'dir' },
  'plugin-timeout': { help: 'For `credentials`: how long a provider may run before it is killed (default 1m0s).', valueName: 'duration' },
  kubeconfig: { help: 'Running: the kubeconfig of the API server to register with, and the credentials to do it with (required).', valueName: 'file' },
  'hostname-override': { help: "Running: the node's name, instead of this machine's hostname.", valueName: 'name' },
  'cert-dir': {
    help: 'Running: where the self-signed serving certificate is kept (plat-agent.crt, plat-agent.key) when tlsCertFile and tlsPrivateKeyFile are not set; empty: generated in memory at every start.',
    valueName: 'dir',
  },
  'api-domain': { help: 'Running: the API domain the server serves: plat.io (default), or k8s.io for Kubernetes names.', valueName: 'domain' },
  'node-ip': { help: "Running: the node's InternalIP address, instead of this machine's first IPv4 address.", valueName: 'ip' },
  help: { bool: true, help: 'Print this help.' },
};

export function usage(program: string): string {
  const lines = [
    `Usage:`,
    `  ${program} --config FILE --validate`,
    `  ${program} --dump-defaults`,
    `  ${program} --config FILE --kubeconfig FILE [--hostname-override NAME] [--cert-dir DIR] [--api-domain DOMAIN] [--node-ip IP]`,
    `  ${program} credentials IMAGE --config FILE --bin-dir DIR`,
    '',
    'Running, the agent registers its Node, renews its Lease, posts its status and serves its endpoints.',
    'Its container runtime is simulated: it runs no containers and no pods.',
    '',
    'Flags:',
  ];
  for (const [name, spec] of Object.entries(flags)) lines.push(`  --${name}${spec.valueName ? ` ${spec.valueName}` : ''}\n      ${spec.help}`);
  return `${lines.join('\n')}\n`;
}

const BOOL_TEXT: Record<string, boolean> = { true: true, '1': true, t: true, TRUE: true, True: true, false: false, '0': false, f: false, FALSE: false, False: false };

/** Parses the arguments (without node and the script); throws UsageError. */
export function parseCommandLine(argv: readonly string[]): Command {
  const values = new Map<string, string | boolean>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h') {
      values.set('help', true);
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const spec = Object.hasOwn(flags, name) ? flags[name] : undefined;
    if (!spec) throw new UsageError(`unknown flag: ${arg.slice(0, arg.length - body.length)}${name}`);
    if (spec.bool) {
      const text = eq < 0 ? 'true' : body.slice(eq + 1);
      const value = BOOL_TEXT[text];
      if (value === undefined) throw new UsageError(`invalid value ${JSON.stringify(text)} for flag --${name}: must be true or false`);
      values.set(name, value);
    } else if (eq >= 0) {
      values.set(name, body.slice(eq + 1));
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`flag needs an argument: --${name}`);
      values.set(name, next);
      i++;
    }
  }

  const text = (name: string): string | undefined => {
    const value = values.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  if (values.get('help') === true) return { kind: 'help' };
  const configFile = text('config');
  const validate = values.get('validate') === true;
  const dumpDefaults = values.get('dump-defaults') === true;
  const binDir = text('bin-dir') ?? text('image-credential-provider-bin-dir');

  if (positionals[0] === 'credentials') {
    if (validate || dumpDefaults) throw new UsageError('--validate and --dump-defaults cannot be used with credentials');
    if (positionals.length !== 2) throw new UsageError(positionals.length < 2 ? 'credentials needs an IMAGE argument' : `unexpected argument: ${positionals[2]}`);
    if (!configFile) throw new UsageError('credentials needs --config FILE (a CredentialProviderConfig)');
    if (!binDir) throw new UsageError('credentials needs --bin-dir DIR');
    const timeoutText = text('plugin-timeout') ?? '1m';
    let pluginTimeoutMs: number;
    try {
      pluginTimeoutMs = parseDuration(timeoutText);
    } catch (error) {
      throw new UsageError(`invalid value ${JSON.stringify(timeoutText)} for flag --plugin-timeout: ${(error as Error).message}`);
    }
    if (pluginTimeoutMs <= 0) throw new UsageError(`invalid value ${JSON.stringify(timeoutText)} for flag --plugin-timeout: must be positive`);
    return { kind: 'credentials', image: positionals[1]!, configFile, binDir, pluginTimeoutMs };
  }
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  for (const name of ['bin-dir', 'image-credential-provider-bin-dir', 'plugin-timeout']) {
    if (values.has(name)) throw new UsageError(`--${name} is only for the credentials command`);
  }
  const runFlags = ['kubeconfig', 'hostname-override', 'cert-dir', 'api-domain', 'node-ip'];
  if (validate && dumpDefaults) throw new UsageError('--validate and --dump-defaults cannot be used together');
  if (validate || dumpDefaults) {
    const misplaced = runFlags.find((name) => values.has(name));
    if (misplaced) throw new UsageError(`--${misplaced} is only for running the agent`);
  }
  if (dumpDefaults) {
    if (configFile !== undefined) throw new UsageError('--dump-defaults takes no --config: it prints the defaults of an empty configuration');
    return { kind: 'dump-defaults' };
  }
  if (validate) {
    if (!configFile) throw new UsageError('--validate needs --config FILE');
    return { kind: 'validate', configFile };
  }
  if (!configFile) throw new UsageError('running the agent needs --config FILE (a NodeAgentConfiguration)');
  const kubeconfig = text('kubeconfig');
  if (!kubeconfig) throw new UsageError('running the agent needs --kubeconfig FILE');
  const apiDomain = text('api-domain') ?? 'plat.io';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(apiDomain)) {
    throw new UsageError(`invalid value ${JSON.stringify(apiDomain)} for flag --api-domain: must be a DNS domain such as plat.io`);
  }
  // Upstream's GetHostname: an empty override is none; else trimmed and lowercased, only spaces an error.
  const hostnameOverride = text('hostname-override') || undefined;
  if (hostnameOverride?.trim() === '') throw new UsageError('invalid value for flag --hostname-override: empty hostname is invalid');
  const nodeIP = text('node-ip');
  if (nodeIP !== undefined && isIP(nodeIP) === 0) throw new UsageError(`invalid value ${JSON.stringify(nodeIP)} for flag --node-ip: must be an IP address`);
  return {
    kind: 'run',
    configFile,
    kubeconfig,
    certDir: text('cert-dir') ?? '',
    apiDomain,
    ...(hostnameOverride && { hostnameOverride: hostnameOverride.trim().toLowerCase() }),
    ...(nodeIP && { nodeIP }),
  };
}
