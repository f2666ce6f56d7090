// A small declarative command-line parser: `--name=value`, `--name value`, bool `--flag` and
// `--flag=false`, comma-separated lists that accumulate when repeated.
import { formatDuration, parseDuration } from './duration.js';

/** A command-line mistake; its message is one line naming the flag. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

export interface FlagDef<T> {
  help: string;
  default: T;
  /** Turns the text into the value; throws an Error whose message says what a valid value is. */
  parse(text: string, previous: T): T;
  /** Bool flags take no separate argument: `--flag` alone means true. */
  isBool?: boolean;
  /** Shown in the usage: the kind of value, and the default when it is not the obvious one. */
  valueName: string;
  defaultText?: string;
  /**
   * Why the flag is deprecated, as pflag's MarkDeprecated: it is still accepted, left out of the
   * usage, and using it gives a warning that says this.
   */
  deprecated?: string;
}

const integer = (text: string, min: number, max: number, what: string): number => {
  if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new Error(what);
  return Number(text);
};

/** Flag constructors. Durations are Go-style text (`5m`, `30s`, `0`) held as milliseconds. */
export const flag = {
  string: (help: string, defaultValue = ''): FlagDef<string> => ({
    help,
    default: defaultValue,
    valueName: 'string',
    parse: (text) => text,
  }),
  bool: (help: string, defaultValue: boolean): FlagDef<boolean> => ({
    help,
    default: defaultValue,
    valueName: '',
    isBool: true,
    parse: (text) => {
      if (['true', '1', 't', 'TRUE', 'True', 'T'].includes(text)) return true;
      if (['false', '0', 'f', 'FALSE', 'False', 'F'].includes(text)) return false;
      throw new Error('must be true or false');
    },
  }),
  int: (help: string, defaultValue: number, min: number, max: number): FlagDef<number> => ({
    help,
    default: defaultValue,
    valueName: 'int',
    parse: (text) => integer(text, min, max, `must be an integer between ${min} and ${max}`),
  }),
  enum: <T extends string>(help: string, values: readonly T[], defaultValue: T): FlagDef<T> => ({
    help,
    default: defaultValue,
    valueName: values.join('|'),
    parse: (text) => {
      if (!(values as readonly string[]).includes(text)) throw new Error(`must be one of ${values.join(', ')}`);
      return text as T;
    },
  }),
  /** Comma-separated; repeating the flag appends. */
  list: (help: string, defaultValue: string[] = []): FlagDef<string[]> => ({
    help,
    default: defaultValue,
    valueName: 'strings',
    parse: (text, previous) => {
      // The first occurrence replaces the default; later ones add to it.
      const items = text.split(',').map((s) => s.trim()).filter(Boolean);
      return previous === defaultValue ? items : [...previous, ...items];
    },
  }),
  /**
   * As pflag's StringSlice reads it: comma-separated fields kept as written, an empty field
   * included (for a flag whose parser refuses one, as upstream's does); an empty value is no field.
   * Repeating the flag appends.
   */
  stringSlice: (help: string): FlagDef<string[]> => ({
    help,
    default: [],
    valueName: 'strings',
    parse: (text, previous) => [...previous, ...(text === '' ? [] : text.split(','))],
  }),
  duration: (help: string, defaultMs: number): FlagDef<number> => ({
    help,
    default: defaultMs,
    valueName: 'duration',
    defaultText: formatDuration(defaultMs),
    parse: (text) => {
      let ms: number;
      try {
        ms = parseDuration(text);
      } catch {
        throw new Error('must be a duration such as 30s, 5m or 1h30m');
      }
      if (ms < 0) throw new Error('must not be negative');
      return ms;
    },
  }),
};

/** `def`, deprecated: accepted, hidden from the usage, its use warned about with `why`. */
export function deprecatedFlag<T>(def: FlagDef<T>, why: string): FlagDef<T> {
  return { ...def, deprecated: why };
}

export type FlagSpecs = Record<string, FlagDef<unknown>>;
export type FlagValues<S extends FlagSpecs> = { [K in keyof S]: S[K] extends FlagDef<infer T> ? T : never };

export interface ParsedFlags<S extends FlagSpecs> {
  values: FlagValues<S>;
  /** The flags that appeared on the command line. */
  given: Set<keyof S & string>;
  help: boolean;
  /** One line per deprecated flag given, in pflag's words: `Flag --<name> has been deprecated, <why>`. */
  warnings: string[];
}

export function parseFlags<S extends FlagSpecs>(specs: S, argv: readonly string[]): ParsedFlags<S> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) values[name] = spec.default;
  const given = new Set<keyof S & string>();
  const warnings: string[] = [];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      throw new FlagError(arg.startsWith('-') ? `unknown flag: ${arg}` : `unexpected argument: ${JSON.stringify(arg)}`);
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const spec = Object.hasOwn(specs, name) ? specs[name]! : undefined;
    if (!spec) throw new FlagError(`unknown flag: --${name}`);
    let text: string;
    if (eq !== -1) text = arg.slice(eq + 1);
    else if (spec.isBool) text = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new FlagError(`flag needs an argument: --${name}`);
      text = next;
      i++;
    }
    try {
      values[name] = spec.parse(text, values[name]);
    } catch (error) {
      throw new FlagError(`invalid value ${JSON.stringify(text)} for flag --${name}: ${(error as Error).message}`);
    }
    if (spec.deprecated !== undefined && !given.has(name as keyof S & string)) warnings.push(`Flag --${name} has been deprecated, ${spec.deprecated}`);
    given.add(name as keyof S & string);
  }
  return { values: values as FlagValues<S>, given, help, warnings };
}

function defaultText(spec: FlagDef<unknown>): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  const value = spec.default;
  if (Array.isArray(value)) return value.length ? `[${value.join(',')}]` : '';
  if (value === '' || value === false) return '';
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

export function usage(program: string, specs: FlagSpecs): string {
  const rows = Object.entries(specs)
    .filter(([, spec]) => spec.deprecated === undefined)
    .map(([name, spec]) => [`--${name}${spec.valueName ? ` ${spec.valueName}` : ''}`, spec] as const);
  const width = Math.max(...rows.map(([left]) => left.length));
  const lines = rows.map(([left, spec]) => {
    const fallback = defaultText(spec);
    return `  ${left.padEnd(width)}   ${spec.help}${fallback ? ` (default ${fallback})` : ''}`;
  });
  return `Usage: ${program} [flags]\n\nFlags:\n${lines.join('\n')}\n`;
}

/**
 * A binary's command line: the parsed result, or undefined after printing --help. A FlagError is
 * printed as one `Error:` line and the process exits 2.
 */
export function commandLineOrExit<C>(
  parse: (argv: readonly string[]) => { config: C; help: false } | { help: true },
  program: string,
  specs: FlagSpecs,
  argv: readonly string[] = process.argv.slice(2),
): C | undefined {
  let parsed: { config: C; help: false } | { help: true };
  try {
    parsed = parse(argv);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`Error: ${error.message}\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(usage(program, specs));
    return undefined;
  }
  return parsed.config;
}
