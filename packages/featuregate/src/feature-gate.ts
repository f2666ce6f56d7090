// Feature gates as 1-conventions 9.2 describes their life cycle, with the behaviour and the texts
// of Kubernetes 1.28's component-base featuregate: alpha off and beta on by default, a GA gate
// locked to true (non-operational; turning it off is refused), a warning whenever a GA or a
// deprecated gate is set, and a removed gate unknown. Every component (apiserver,
// controller-manager, node agent) reads its gates through this one type.

export type Stage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  readonly default: boolean;
  readonly stage: Stage;
  /** The gate can no longer be changed: a GA (or deprecated) gate whose feature is always on or off. */
  readonly lockToDefault?: boolean;
}

/**
 * What a component does with a gate it knows but whose feature it cannot switch: 'always' (it
 * always behaves as if the gate were on) or 'never' (it does not implement the feature). Setting
 * such a gate to the other value is refused rather than accepted and ignored.
 */
export type FixedBehaviour = 'always' | 'never';

/** One refused setting: unknown gate, a locked gate set against its lock, or a fixed behaviour. */
export interface GateError {
  readonly name: string;
  readonly value: boolean;
  readonly reason: 'unknown' | 'locked' | 'fixed';
  readonly message: string;
}

/** The gates every gate set knows, as upstream's: they set every alpha (beta) gate not set itself. */
export const allAlpha = 'AllAlpha';
export const allBeta = 'AllBeta';
const generalGates: Readonly<Record<string, FeatureSpec>> = {
  [allAlpha]: { default: false, stage: 'ALPHA' },
  [allBeta]: { default: false, stage: 'BETA' },
};

/** Which features are on: the known gates' defaults overlaid with what was set explicitly. */
export class FeatureGate<Name extends string> {
  private readonly known: Readonly<Record<string, FeatureSpec>>;
  private readonly explicit: ReadonlyMap<string, boolean>;

  constructor(
    known: Readonly<Record<Name, FeatureSpec>>,
    explicit: Readonly<Record<string, boolean>> = {},
    private readonly fixed: Readonly<Partial<Record<string, FixedBehaviour>>> = {},
  ) {
    this.known = { ...generalGates, ...known };
    this.explicit = new Map(Object.entries(explicit).filter(([name]) => Object.hasOwn(this.known, name)));
  }

  /** The gate's spec, or undefined for a name this set does not know. */
  spec(name: string): FeatureSpec | undefined {
    return Object.hasOwn(this.known, name) ? this.known[name] : undefined;
  }

  enabled(name: Name | typeof allAlpha | typeof allBeta): boolean {
    const set = this.explicit.get(name);
    if (set !== undefined) return set;
    const spec = this.spec(name);
    if (!spec) return false;
    // AllAlpha/AllBeta move only the gates no one set by name (upstream resolves them the same way).
    if (spec.stage === 'ALPHA' && name !== allAlpha) return this.explicit.get(allAlpha) ?? spec.default;
    if (spec.stage === 'BETA' && name !== allBeta) return this.explicit.get(allBeta) ?? spec.default;
    return spec.default;
  }

  /** Every gate's value, by name (for logs and tests). */
  values(): Record<string, boolean> {
    return Object.fromEntries(Object.keys(this.known).map((name) => [name, this.enabled(name as Name)]));
  }

  /**
   * This set with more gates set: each unknown name, each locked gate set against its lock and each
   * fixed behaviour asked the other way is an error (and not applied); each GA or deprecated gate
   * set at all gets upstream's warning.
   */
  withOverrides(overrides: Readonly<Record<string, boolean>> | undefined): { gates: FeatureGate<Name>; errors: GateError[]; warnings: string[] } {
    const errors: GateError[] = [];
    const warnings: string[] = [];
    const merged: Record<string, boolean> = Object.fromEntries(this.explicit);
    for (const [name, value] of Object.entries(overrides ?? {})) {
      const spec = this.spec(name);
      if (!spec) {
        errors.push({ name, value, reason: 'unknown', message: `unrecognized feature gate: ${name}` });
        continue;
      }
      if (spec.lockToDefault && value !== spec.default) {
        errors.push({ name, value, reason: 'locked', message: `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}` });
        continue;
      }
      const fixed = this.fixed[name as Name];
      if (fixed === 'never' && value) {
        errors.push({ name, value, reason: 'fixed', message: `cannot set feature gate ${name} to true, this server does not implement the feature` });
        continue;
      }
      if (fixed === 'always' && !value) {
        errors.push({ name, value, reason: 'fixed', message: `cannot set feature gate ${name} to false, this server cannot turn the feature off` });
        continue;
      }
      merged[name] = value;
      if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    return { gates: new FeatureGate<Name>(this.known as Record<Name, FeatureSpec>, merged, this.fixed), errors, warnings };
  }

  /**
   * This set with `--feature-gates` items applied (repeated flags accumulate, later items win), as
   * a component's flag does it; throws upstream's text of the first refusal.
   */
  withFlag(items: readonly string[]): { gates: FeatureGate<Name>; warnings: string[] } {
    const { gates, errors, warnings } = this.withOverrides(parseFeatureGatePairs(items));
    if (errors.length) throw new Error(errors[0]!.message);
    return { gates, warnings };
  }

  /**
   * The gates as --help lists them, upstream's way: `Name=true|false (BETA - default=true)`, sorted,
   * GA and deprecated gates left out (they are not to be set any more). A fixed behaviour is named.
   */
  knownFeatures(): string[] {
    const lines: string[] = [];
    for (const [name, spec] of Object.entries(this.known)) {
      if (spec.stage === 'GA' || spec.stage === 'DEPRECATED') continue;
      const fixed = this.fixed[name as Name];
      const note = fixed === 'never' ? '; not implemented here' : fixed === 'always' ? '; always on here' : '';
      lines.push(`${name}=true|false (${spec.stage} - default=${spec.default}${note})`);
    }
    return lines.sort();
  }
}

/** Go's strconv.ParseBool, which upstream's flag uses: 1 t T TRUE true True and their opposites. */
function parseBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/**
 * `--feature-gates` items (`Name=bool`, comma lists already split) as a map, later items winning;
 * throws upstream's message for an item without a value or with one that is not a bool.
 */
export function parseFeatureGatePairs(items: readonly string[]): Record<string, boolean> {
  const set: Record<string, boolean> = {};
  for (const item of items.flatMap((entry) => entry.split(','))) {
    if (!item) continue;
    const equals = item.indexOf('=');
    const name = (equals < 0 ? item : item.slice(0, equals)).trim();
    if (equals < 0) throw new Error(`missing bool value for ${name}`);
    const text = item.slice(equals + 1).trim();
    const value = parseBool(text);
    if (value === undefined) throw new Error(`invalid value of ${name}=${text}, err: strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
    set[name] = value;
  }
  return set;
}
