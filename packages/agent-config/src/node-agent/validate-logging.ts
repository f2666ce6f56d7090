// Validation of the logging configuration: format, verbosity, per-file verbosity (text only) and the alpha JSON options.
import { forbidden, invalid, required, type FieldError } from '@plat/apimachinery';
import { path, quantity, requireGates, type ValidationContext } from './validate-helpers.js';

const MAX_INT32 = 2 ** 31 - 1;

export function validateLogging({ config: c, gates }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  const logging = c.logging ?? {};
  const at = path('logging');
  const format = logging.format ?? '';
  if (format === 'json') requireGates(errors, gates, at.child('format'), 'LoggingBetaOptions');
  else if (format !== 'text') errors.push(invalid(at.child('format'), format, 'Unsupported log format'));
  if ((logging.verbosity ?? 0) > MAX_INT32) errors.push(invalid(at.child('verbosity'), logging.verbosity, `Must be <= ${MAX_INT32}`));

  const vmodule = logging.vmodule ?? [];
  if (vmodule.length && format !== 'text') errors.push(forbidden(at.child('vmodule'), 'Only supported for text log format'));
  // As component-base reports them: every error of an entry at the entry itself, not at its fields.
  vmodule.forEach((item, i) => {
    const itemAt = at.child('vmodule').index(i);
    const pattern = item.filePattern ?? '';
    if (!pattern) errors.push(required(itemAt, 'File pattern must not be empty'));
    else if (/[=,]/.test(pattern)) errors.push(invalid(itemAt, pattern, 'File pattern must not contain equal sign or comma'));
    if ((item.verbosity ?? 0) > MAX_INT32) errors.push(invalid(itemAt, item.verbosity, `Must be <= ${MAX_INT32}`));
  });

  const json = logging.options?.json ?? {};
  const jsonAt = at.child('options', 'json');
  if (json.splitStream) requireGates(errors, gates, jsonAt.child('splitStream'), 'LoggingAlphaOptions');
  if (json.infoBufferSize !== undefined) {
    const size = quantity(errors, jsonAt.child('infoBufferSize'), json.infoBufferSize);
    if (size && size.sign() < 0) errors.push(invalid(jsonAt.child('infoBufferSize'), json.infoBufferSize, 'must not be negative'));
    else if (size && !size.isZero()) requireGates(errors, gates, jsonAt.child('infoBufferSize'), 'LoggingAlphaOptions');
  }
  return errors;
}
