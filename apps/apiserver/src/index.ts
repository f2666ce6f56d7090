// The apiserver binary's command line, exported for tests and tools; the binary itself is main.ts.
export { FlagError, flag, parseFlags, usage, type FlagDef, type FlagSpecs, type FlagValues, type ParsedFlags } from '@plat/apimachinery';
export { apiserverFlags, buildConfig, parseCommandLine, defaultCertDir, type ApiserverConfig, type ApiserverFlagValues } from './options.js';
