// Pure API machinery: Status errors, field errors and paths, durations.
export * from './status.js';
export * from './field-errors.js';
export { parseDuration, formatDuration } from './duration.js';
export { goQuote } from './go-format.js';
