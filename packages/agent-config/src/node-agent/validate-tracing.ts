// Validation of the tracing configuration: its feature gate, the collector endpoint and the sampling rate.
import { invalid, type FieldError } from '@plat/apimachinery';
import { path, requireGates, type ValidationContext } from './validate-helpers.js';

const MAX_SAMPLING_RATE = 1_000_000;

export function validateTracing({ config: c, gates }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  const tracing = c.tracing;
  if (!tracing) return errors;
  requireGates(errors, gates, path('tracing'), 'AgentTracing');
  const rate = tracing.samplingRatePerMillion;
  if (rate !== undefined && rate < 0) errors.push(invalid(path('tracing', 'samplingRatePerMillion'), rate, 'sampling rate must be positive'));
  if (rate !== undefined && rate > MAX_SAMPLING_RATE) {
    errors.push(invalid(path('tracing', 'samplingRatePerMillion'), rate, 'sampling rate per million must be less than or equal to one million'));
  }
  if (tracing.endpoint !== undefined) {
    // An endpoint without a scheme is a host:port for the DNS resolver.
    const url = tracing.endpoint.includes('//') ? tracing.endpoint : `dns://${tracing.endpoint}`;
    if (!URL.canParse(url)) errors.push(invalid(path('tracing', 'endpoint'), tracing.endpoint, 'not a valid endpoint URL'));
  }
  return errors;
}
