import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine, UsageError, type Command } from './command-line.js';

const commands: [string[], Command][] = [
  [['--config', 'a.yaml', '--validate'], { kind: 'validate', configFile: 'a.yaml' }],
  [['--validate', '--config=a.yaml'], { kind: 'validate', configFile: 'a.yaml' }],
  [['-config', 'a.yaml', '-validate'], { kind: 'validate', configFile: 'a.yaml' }],
  [['--dump-defaults'], { kind: 'dump-defaults' }],
  [['--config', 'a.yaml', '--validate=false'], { kind: 'run', configFile: 'a.yaml' }],
  [['credentials', 'registry.io/app', '--config', 'p.yaml', '--bin-dir', '/bin'], { kind: 'credentials', image: 'registry.io/app', configFile: 'p.yaml', binDir: '/bin', pluginTimeoutMs: 60_000 }],
  [['--config=p.yaml', 'credentials', '--image-credential-provider-bin-dir=/bin', 'registry.io/app', '--plugin-timeout', '5s'], { kind: 'credentials', image: 'registry.io/app', configFile: 'p.yaml', binDir: '/bin', pluginTimeoutMs: 5000 }],
  [[], { kind: 'run', configFile: undefined }],
  [['--help'], { kind: 'help' }],
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
];

for (const [argv, message] of mistakes) {
  test(`command line mistake: ${argv.join(' ')}`, () => {
    assert.throws(() => parseCommandLine(argv), (error: unknown) => error instanceof UsageError && error.message === message);
  });
}
