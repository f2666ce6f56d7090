import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine, UsageError, type Command } from './command-line.js';

const commands: [string[], Command][] = [
  [['--config', 'a.yaml', '--validate'], { kind: 'validate', configFile: 'a.yaml' }],
  [['--validate', '--config=a.yaml'], { kind: 'validate', configFile: 'a.yaml' }],
  [['-config', 'a.yaml', '-validate'], { kind: 'validate', configFile: 'a.yaml' }],
  [['--dump-defaults'], { kind: 'dump-defaults' }],
  [['--config', 'a.yaml', '--validate=false', '--kubeconfig', 'k'], { kind: 'run', configFile: 'a.yaml', kubeconfig: 'k', certDir: '', apiDomain: 'plat.io' }],
  [
    ['--config', 'a.yaml', '--kubeconfig=k', '--hostname-override', 'worker-1', '--cert-dir', '/pki', '--api-domain', 'k8s.io', '--node-ip', '10.0.0.7'],
    { kind: 'run', configFile: 'a.yaml', kubeconfig: 'k', certDir: '/pki', apiDomain: 'k8s.io', hostnameOverride: 'worker-1', nodeIP: '10.0.0.7' },
  ],
  [['credentials', 'registry.io/app', '--config', 'p.yaml', '--bin-dir', '/bin'], { kind: 'credentials', image: 'registry.io/app', configFile: 'p.yaml', binDir: '/bin', pluginTimeoutMs: 60_000 }],
  [['--config=p.yaml', 'credentials', '--image-credential-provider-bin-dir=/bin', 'registry.io/app', '--plugin-timeout', '5s'], { kind: 'credentials', image: 'registry.io/app', configFile: 'p.yaml', binDir: '/bin', pluginTimeoutMs: 5000 }],
  [['--help'], { kind: 'help' }],
  [['--config', 'a.yaml', '--kubeconfig=k', '--hostname-override', ' Worker-2 '], { kind: 'run', configFile: 'a.yaml', kubeconfig: 'k', certDir: '', apiDomain: 'plat.io', hostnameOverride: 'worker-2' }],
];

for (const [argv, expected] of commands) {
  test(`command line: ${argv.join(' ') || '(nothing)'}`, () => {
    assert.deepEqual(parseCommandLine(argv), expected);
  });
}

const mistakes: [string[], string][] = [
  [['--bogus'], 'unknown flag: --bogus'],
  [['--bogus=1', '--validate'], 'unknown flag: --bogus'],
  [['-x'], 'unknown flag: -x'],
  [['--config'], 'flag needs an argument: --config'],
  [['--validate'], '--validate needs --config FILE'],
  [['--validate=maybe'], 'invalid value "maybe" for flag --validate: must be true or false'],
  [['--dump-defaults', '--validate', '--config', 'a'], '--validate and --dump-defaults cannot be used together'],
  [['--dump-defaults', '--config', 'a'], '--dump-defaults takes no --config: it prints the defaults of an empty configuration'],
  [['run'], 'unexpected argument: run'],
  [['credentials', '--config', 'p', '--bin-dir', 'd'], 'credentials needs an IMAGE argument'],
  [['credentials', 'a', 'b', '--config', 'p', '--bin-dir', 'd'], 'unexpected argument: b'],
  [['credentials', 'a', '--bin-dir', 'd'], 'credentials needs --config FILE (a CredentialProviderConfig)'],
  [['credentials', 'a', '--config', 'p'], 'credentials needs --bin-dir DIR'],
  [['credentials', 'a', '--config', 'p', '--bin-dir', 'd', '--validate'], '--validate and --dump-defaults cannot be used with credentials'],
  [['credentials', 'a', '--config', 'p', '--bin-dir', 'd', '--plugin-timeout', 'soon'], 'invalid value "soon" for flag --plugin-timeout: time: invalid duration "soon"'],
  [['--config', 'a', '--bin-dir', 'd'], '--bin-dir is only for the credentials command'],
  [[], 'running the agent needs --config FILE (a NodeAgentConfiguration)'],
  [['--config', 'a'], 'running the agent needs --kubeconfig FILE'],
  [['--config', 'a', '--kubeconfig', 'k', '--api-domain', 'Plat'], 'invalid value "Plat" for flag --api-domain: must be a DNS domain such as plat.io'],
  [['--config', 'a', '--kubeconfig', 'k', '--node-ip', 'here'], 'invalid value "here" for flag --node-ip: must be an IP address'],
  [['--config', 'a', '--validate', '--kubeconfig', 'k'], '--kubeconfig is only for running the agent'],
  [['--config', 'a', '--kubeconfig', 'k', '--hostname-override', '  '], 'invalid value for flag --hostname-override: empty hostname is invalid'],
];

for (const [argv, message] of mistakes) {
  test(`command line mistake: ${argv.join(' ')}`, () => {
    assert.throws(() => parseCommandLine(argv), (error: unknown) => error instanceof UsageError && error.message === message);
  });
}
