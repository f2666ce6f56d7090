// Validation of image handling: garbage-collection thresholds, parallel pulls, container log rotation.
import { invalid, type FieldError } from '@plat/apimachinery';
import { inRange, path, quantity, type ValidationContext } from './validate-helpers.js';

export function validateImages({ config: c }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  const high = c.imageGCHighThresholdPercent ?? 0;
  const low = c.imageGCLowThresholdPercent ?? 0;
  inRange(errors, path('imageGCHighThresholdPercent'), high, 0, 100);
  inRange(errors, path('imageGCLowThresholdPercent'), low, 0, 100);
  if (low >= high) errors.push(invalid(path('imageGCLowThresholdPercent'), low, `must be less than imageGCHighThresholdPercent (${high})`));
  // No rule for imageMinimumGCAge: kubelet 1.28 has none (a negative age lets every unused image go).

  // As kubelet: serialized pulls are one at a time, so a limit of 1 agrees with them and only a larger one conflicts.
  const parallel = c.maxParallelImagePulls;
  if (parallel !== undefined && parallel < 1) errors.push(invalid(path('maxParallelImagePulls'), parallel, 'must be a positive number'));
  if (parallel !== undefined && parallel > 1 && c.serializeImagePulls) {
    errors.push(invalid(path('maxParallelImagePulls'), parallel, 'cannot be larger than 1 unless serializeImagePulls is set to false'));
  }

  if (c.containerLogMaxSize !== undefined) {
    const size = quantity(errors, path('containerLogMaxSize'), c.containerLogMaxSize);
    if (size && size.sign() <= 0) errors.push(invalid(path('containerLogMaxSize'), c.containerLogMaxSize, 'must be greater than zero'));
  }
  if ((c.containerLogMaxFiles ?? 0) <= 1) errors.push(invalid(path('containerLogMaxFiles'), c.containerLogMaxFiles ?? 0, 'must be greater than 1'));
  return errors;
}
