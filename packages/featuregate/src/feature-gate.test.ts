import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FeatureGate, parseFeatureGatePairs, type FeatureSpec } from './feature-gate.js';
import { clusterFeatureGates } from './cluster-gates.js';
import { agentFeatureGates } from './agent-gates.js';

const known = {
  Alpha: { default: false, stage: 'ALPHA' },
  Beta: { default: true, stage: 'BETA' },
  BetaOff: { default: false, stage: 'BETA' },
  Stable: { default: true, stage: 'GA', lockToDefault: true },
  StableUnlocked: { default: true, stage: 'GA' },
  Old: { default: false, stage: 'DEPRECATED' },
  Missing: { default: false, stage: 'ALPHA' },
  Built: { default: true, stage: 'BETA' },
} as const satisfies Record<string, FeatureSpec>;
const gate = new FeatureGate(known, {}, { Missing: 'never', Built: 'always' });

describe('feature gates: the rules of 9.2, one row each', () => {
  const rows: Array<{ rule: string; set: Record<string, boolean>; enabled?: Record<string, boolean>; errors?: string[]; warnings?: string[] }> = [
    { rule: 'alpha is off by default', set: {}, enabled: { Alpha: false } },
    { rule: 'beta is on by default (unless upstream says otherwise)', set: {}, enabled: { Beta: true, BetaOff: false } },
    { rule: 'an alpha gate is turned on, without a warning', set: { Alpha: true }, enabled: { Alpha: true }, warnings: [] },
    { rule: 'a beta gate is turned off, without a warning', set: { Beta: false }, enabled: { Beta: false }, warnings: [] },
    {
      rule: 'a GA gate is locked: turning it off is refused',
      set: { Stable: false },
      enabled: { Stable: true },
      errors: ['cannot set feature gate Stable to false, feature is locked to true'],
      warnings: [],
    },
    {
      rule: 'setting a GA gate to its value is accepted with a warning',
      set: { Stable: true },
      enabled: { Stable: true },
      errors: [],
      warnings: ['Setting GA feature gate Stable=true. It will be removed in a future release.'],
    },
    {
      rule: 'an unlocked GA gate may still be set, with the warning',
      set: { StableUnlocked: false },
      enabled: { StableUnlocked: false },
      warnings: ['Setting GA feature gate StableUnlocked=false. It will be removed in a future release.'],
    },
    {
      rule: 'a deprecated gate works and warns',
      set: { Old: true },
      enabled: { Old: true },
      warnings: ['Setting deprecated feature gate Old=true. It will be removed in a future release.'],
    },
    { rule: 'a removed (unknown) gate is refused', set: { Gone: true }, errors: ['unrecognized feature gate: Gone'] },
    { rule: 'AllAlpha turns on every alpha gate not set by name', set: { AllAlpha: true }, enabled: { Alpha: true, Beta: true } },
    { rule: 'a gate set by name wins over AllAlpha', set: { AllAlpha: true, Alpha: false }, enabled: { Alpha: false } },
    { rule: 'AllBeta=false turns off every beta gate not set by name', set: { AllBeta: false, BetaOff: true }, enabled: { Beta: false, BetaOff: true, Stable: true } },
    {
      rule: 'a feature this component does not implement cannot be turned on',
      set: { Missing: true },
      enabled: { Missing: false },
      errors: ['cannot set feature gate Missing to true, this server does not implement the feature'],
    },
    { rule: '... and may be set to what it does', set: { Missing: false, Built: true }, errors: [] },
    {
      rule: 'a feature this component always has cannot be turned off',
      set: { Built: false },
      enabled: { Built: true },
      errors: ['cannot set feature gate Built to false, this server cannot turn the feature off'],
    },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const { gates, errors, warnings } = gate.withOverrides(row.set);
      for (const [name, value] of Object.entries(row.enabled ?? {})) assert.equal(gates.enabled(name as keyof typeof known), value, name);
      if (row.errors) assert.deepEqual(errors.map((error) => error.message), row.errors);
      if (row.warnings) assert.deepEqual(warnings, row.warnings);
    });
  }
});

test('feature gates: later settings build on earlier ones (repeated --feature-gates flags)', () => {
  const first = gate.withOverrides({ Alpha: true }).gates;
  const second = first.withOverrides({ Beta: false }).gates;
  assert.equal(second.enabled('Alpha'), true);
  assert.equal(second.enabled('Beta'), false);
});

test('feature gates: --help lists the settable gates as upstream, GA and deprecated ones left out', () => {
  assert.deepEqual(gate.knownFeatures(), [
    'AllAlpha=true|false (ALPHA - default=false)',
    'AllBeta=true|false (BETA - default=false)',
    'Alpha=true|false (ALPHA - default=false)',
    'Beta=true|false (BETA - default=true)',
    'BetaOff=true|false (BETA - default=false)',
    'Built=true|false (BETA - default=true; always on here)',
    'Missing=true|false (ALPHA - default=false; not implemented here)',
  ]);
});

describe('feature gates: the flag syntax, as Go parses it', () => {
  const rows: Array<{ items: string[]; want?: Record<string, boolean>; error?: string }> = [
    { items: ['A=true,B=false'], want: { A: true, B: false } },
    { items: ['A=true', 'A=false'], want: { A: false } },
    { items: [' A = 1 ,,B=F'], want: { A: true, B: false } },
    { items: ['A=T', 'B=TRUE', 'C=True', 'D=0', 'E=f', 'F=False'], want: { A: true, B: true, C: true, D: false, E: false, F: false } },
    { items: ['A'], error: 'missing bool value for A' },
    { items: ['A=yes'], error: 'invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax' },
    { items: ['A=true=false'], error: 'invalid value of A=true=false, err: strconv.ParseBool: parsing "true=false": invalid syntax' },
  ];
  for (const row of rows) {
    test(row.items.join(' '), () => {
      if (row.error) assert.throws(() => parseFeatureGatePairs(row.items), { message: row.error });
      else assert.deepEqual(parseFeatureGatePairs(row.items), row.want);
    });
  }
});

test('feature gates: the 1.28 cluster gates the issue names, with their stage, default and lock', () => {
  const want: Record<string, FeatureSpec> = {
    ServerSideApply: { default: true, stage: 'GA', lockToDefault: true },
    ServerSideFieldValidation: { default: true, stage: 'GA', lockToDefault: true },
    APIListChunking: { default: true, stage: 'BETA' },
    APIResponseCompression: { default: true, stage: 'BETA' },
    WatchList: { default: false, stage: 'ALPHA' },
    ConsistentListFromCache: { default: false, stage: 'ALPHA' },
    CustomResourceValidationExpressions: { default: true, stage: 'BETA' },
    ValidatingAdmissionPolicy: { default: false, stage: 'BETA' },
    CRDValidationRatcheting: { default: false, stage: 'ALPHA' },
  };
  for (const [name, spec] of Object.entries(want)) assert.deepEqual(clusterFeatureGates[name as keyof typeof clusterFeatureGates], spec, name);
  const cluster = new FeatureGate(clusterFeatureGates);
  assert.deepEqual(cluster.withOverrides({ ServerSideApply: false }).errors.map((error) => error.message), [
    'cannot set feature gate ServerSideApply to false, feature is locked to true',
  ]);
  assert.deepEqual(cluster.withOverrides({ ServerSideApply: true }).warnings, ['Setting GA feature gate ServerSideApply=true. It will be removed in a future release.']);
  // Removed before 1.28: unknown now.
  for (const removed of ['AdvancedAuditing', 'DryRun', 'ServiceAccountIssuerDiscovery']) {
    assert.deepEqual(cluster.withOverrides({ [removed]: true }).errors.map((error) => error.reason), ['unknown'], removed);
  }
});

test('feature gates: every stage rule holds across the tables (alpha off, GA locked on)', () => {
  for (const [name, spec] of Object.entries<FeatureSpec>({ ...clusterFeatureGates, ...agentFeatureGates })) {
    if (spec.stage === 'ALPHA') assert.equal(spec.default, false, name);
    if (spec.stage === 'GA') assert.deepEqual([spec.default, spec.lockToDefault], [true, true], name);
  }
});
