// The command line: `--name=value`, `--name value`, bool `--flag` and `--flag=false`, as the
// apiserver's parser (kept separate: apps do not import each other).
import { parseDuration } from '@plat/apimachinery';

export class FlagError extends Error {
  override readonly name = 'FlagError';
}

export interface FlagDef<T> {
  help: string;
  default: T;
  parse(text: string): T;
  isBool?: boolean;
  valueName: string;
}

export const flag = {
  string: (help: string, defaultValue = ''): FlagDef<string> => ({ help, default: defaultValue, valueName: 'string', parse: (text) => text }),
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
    parse: (text) => {
      if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new Error(`must be an integer between ${min} and ${max}`);
      return Number(text);
    },
  }),
  duration: (help: string, defaultMs: number): FlagDef<number> => ({
    help,
    default: defaultMs,
    valueName: 'duration',
    parse: (text) => {
      let ms: number;
      try {
        ms = parseDuration(text);
      } catch {
        throw new Error('must be a duration such as 15s or 1m');
      }
      if (ms <= 0) throw new Error('must be positive');
      return ms;
    },
  }),
  list: (help: string, defaultValue: string[]): FlagDef<string[]> => ({
    help,
    default: defaultValue,
    valueName: 'strings',
    parse: (text) => text.split(',').map((s) => s.trim()).filter(Boolean),
  }),
};

export type FlagSpecs = Record<string, FlagDef<unknown>>;
export type FlagValues<S extends FlagSpecs> = { [K in keyof S]: S[K] extends FlagDef<infer T> ? T : never };

export function parseFlags<S extends FlagSpecs>(specs: S, argv: readonly string[]): { values: FlagValues<S>; help: boolean } {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) values[name] = spec.default;
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
      values[name] = spec.parse(text);
    } catch (error) {
      throw new FlagError(`invalid value ${JSON.stringify(text)} for flag --${name}: ${(error as Error).message}`);
    }
  }
  return { values: values as FlagValues<S>, help };
}

export function usage(program: string, specs: FlagSpecs): string {
  const rows = Object.entries(specs).map(([name, spec]) => [`--${name}${spec.valueName ? ` ${spec.valueName}` : ''}`, spec] as const);
  const width = Math.max(...rows.map(([left]) => left.length));
  return `Usage: ${program} [flags]\n\nFlags:\n${rows.map(([left, spec]) => `  ${left.padEnd(width)}   ${spec.help}`).join('\n')}\n`;
}
