import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError, deprecatedFlag, flag, parseFlags, usage } from './flags.js';

const specs = {
  name: flag.string('A name.', 'default-name'),
  verbose: flag.bool('Say more.', false),
  color: flag.bool('Use color.', true),
  port: flag.int('A port.', 6443, 0, 65535),
  servers: flag.list('Servers.'),
  fields: flag.stringSlice('Fields as written.'),
  mode: flag.enum('A mode.', ['a', 'b'] as const, 'a'),
  interval: flag.duration('An interval.', 300_000),
  size: deprecatedFlag(flag.int('A size.', 100, -1000, 1000), 'sizes are automatic now'),
};

type Values = ReturnType<typeof parseFlags<typeof specs>>['values'];
const defaults: Values = { name: 'default-name', verbose: false, color: true, port: 6443, servers: [], fields: [], mode: 'a', interval: 300_000, size: 100 };

const ok: { name: string; argv: string[]; want: Partial<Values>; help?: boolean }[] = [
  { name: 'no flags: defaults', argv: [], want: {} },
  { name: '--name=value', argv: ['--name=x'], want: { name: 'x' } },
  { name: '--name value', argv: ['--name', 'x'], want: { name: 'x' } },
  { name: 'a value with =', argv: ['--name=a=b'], want: { name: 'a=b' } },
  { name: 'an empty value', argv: ['--name='], want: { name: '' } },
  { name: 'bool alone is true', argv: ['--verbose'], want: { verbose: true } },
  { name: 'bool =false', argv: ['--color=false'], want: { color: false } },
  { name: 'bool =true', argv: ['--verbose=true'], want: { verbose: true } },
  { name: 'bool does not take the next argument', argv: ['--verbose', '--port=1'], want: { verbose: true, port: 1 } },
  { name: 'int', argv: ['--port', '0'], want: { port: 0 } },
  { name: 'list, comma-separated', argv: ['--servers=a,b'], want: { servers: ['a', 'b'] } },
  { name: 'list, repeated flags append', argv: ['--servers=a,b', '--servers', 'c'], want: { servers: ['a', 'b', 'c'] } },
  { name: 'string slice: fields as written, an empty one kept', argv: ['--fields=a,,b ', '--fields', ' c'], want: { fields: ['a', '', 'b ', ' c'] } },
  { name: 'string slice: an empty value is no field', argv: ['--fields='], want: { fields: [] } },
  { name: 'enum', argv: ['--mode=b'], want: { mode: 'b' } },
  { name: 'duration', argv: ['--interval=30s'], want: { interval: 30_000 } },
  { name: 'duration 0 disables', argv: ['--interval=0'], want: { interval: 0 } },
  { name: 'the last of a repeated scalar wins', argv: ['--name=a', '--name=b'], want: { name: 'b' } },
  { name: 'a deprecated flag still takes its value', argv: ['--size=0'], want: { size: 0 } },
  { name: '--help', argv: ['--help'], want: {}, help: true },
  { name: '-h', argv: ['-h', '--port=5'], want: { port: 5 }, help: true },
];

for (const { name, argv, want, help = false } of ok) {
  test(`flags: ${name}`, () => {
    const parsed = parseFlags(specs, argv);
    assert.deepEqual(parsed.values, { ...defaults, ...want });
    assert.equal(parsed.help, help);
  });
}

test('flags: given records the flags that appeared', () => {
  assert.deepEqual([...parseFlags(specs, ['--port=1', '--verbose']).given].sort(), ['port', 'verbose']);
});

test('flags: a deprecated flag given is warned about once, in pflag\'s words; others are not', () => {
  assert.deepEqual(parseFlags(specs, ['--port=1']).warnings, []);
  assert.deepEqual(parseFlags(specs, ['--size=0', '--size', '5']).warnings, ['Flag --size has been deprecated, sizes are automatic now']);
});

const bad: { name: string; argv: string[]; message: string }[] = [
  { name: 'unknown flag', argv: ['--foo'], message: 'unknown flag: --foo' },
  { name: 'unknown flag with a value', argv: ['--foo=bar'], message: 'unknown flag: --foo' },
  { name: 'single dash', argv: ['-v'], message: 'unknown flag: -v' },
  { name: 'positional argument', argv: ['serve'], message: 'unexpected argument: "serve"' },
  { name: 'not an integer', argv: ['--port=abc'], message: 'invalid value "abc" for flag --port: must be an integer between 0 and 65535' },
  { name: 'out of range', argv: ['--port=70000'], message: 'invalid value "70000" for flag --port: must be an integer between 0 and 65535' },
  { name: 'not a bool', argv: ['--verbose=maybe'], message: 'invalid value "maybe" for flag --verbose: must be true or false' },
  { name: 'not in the enum', argv: ['--mode=c'], message: 'invalid value "c" for flag --mode: must be one of a, b' },
  { name: 'not a duration', argv: ['--interval=5'], message: 'invalid value "5" for flag --interval: must be a duration such as 30s, 5m or 1h30m' },
  { name: 'negative duration', argv: ['--interval=-1s'], message: 'invalid value "-1s" for flag --interval: must not be negative' },
  { name: 'a deprecated flag\'s value is still checked', argv: ['--size=x'], message: 'invalid value "x" for flag --size: must be an integer between -1000 and 1000' },
  { name: 'missing value at the end', argv: ['--name'], message: 'flag needs an argument: --name' },
  { name: 'missing value before another flag', argv: ['--name', '--verbose'], message: 'flag needs an argument: --name' },
  { name: 'inherited object keys are not flags', argv: ['--constructor=x'], message: 'unknown flag: --constructor' },
];

for (const { name, argv, message } of bad) {
  test(`flags: ${name} is a one-line FlagError`, () => {
    assert.throws(() => parseFlags(specs, argv), (error: unknown) => {
      assert.ok(error instanceof FlagError);
      assert.equal(error.message, message);
      assert.ok(!error.message.includes('\n'));
      return true;
    });
  });
}

test('flags: usage lists each flag with its default', () => {
  const text = usage('prog', specs);
  assert.match(text, /^Usage: prog \[flags\]/);
  assert.match(text, /--port int +A port\. \(default 6443\)/);
  assert.match(text, /--interval duration +An interval\. \(default 5m0s\)/);
  assert.match(text, /--color +Use color\. \(default true\)/);
  assert.match(text, /--verbose +Say more\.\n/);
  // Deprecated flags are hidden, as pflag hides them.
  assert.doesNotMatch(text, /--size/);
});
