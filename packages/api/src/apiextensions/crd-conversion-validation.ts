// spec.conversion of a CRD: strategy None, or Webhook with where to reach the webhook and which
// ConversionReview versions it speaks. Upstream reports the webhook's fields at its internal
// paths (spec.conversion.webhookClientConfig, spec.conversion.conversionReviewVersions), so do we.
// This server converts between versions only by None: a valid Webhook conversion is refused.
import { GoFormatted, forbidden, goStringSlice, invalid, isDNS1035Label, notSupported, required, type FieldError, type FieldPath } from '@plat/apimachinery';
import { validateWebhookService, validateWebhookURL } from '@plat/webhook';
import type { WebhookClientConfig } from './types.js';

/** spec.conversion as upstream's internal type holds it (the v1 webhook's fields lifted up). */
export interface InternalConversion {
  strategy: string;
  webhookClientConfig?: WebhookClientConfig;
  conversionReviewVersions?: string[];
}

const acceptedConversionReviewVersions = ['v1', 'v1beta1'];

/** Upstream's validateEnumStrings: required when empty, else one of `accepted`. */
export function validateEnumString(path: FieldPath, value: string, accepted: readonly string[]): FieldError[] {
  if (!value) return [required(path, '')];
  return accepted.includes(value) ? [] : [notSupported(path, value, accepted)];
}

/** Whether the list names a version the server understands, or is empty (update ratcheting). */
export const hasValidConversionReviewVersionOrEmpty = (versions: readonly string[] | undefined): boolean =>
  !versions?.length || versions.some((v) => acceptedConversionReviewVersions.includes(v));

function validateConversionReviewVersions(versions: readonly string[] | undefined, requireRecognized: boolean, path: FieldPath): FieldError[] {
  if (!versions?.length) return [required(path, '')];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let recognized = false;
  versions.forEach((version, i) => {
    if (seen.has(version)) {
      errors.push(invalid(path.index(i), version, 'duplicate version'));
      return;
    }
    seen.add(version);
    for (const problem of isDNS1035Label(version)) errors.push(invalid(path.index(i), version, problem));
    if (acceptedConversionReviewVersions.includes(version)) recognized = true;
  });
  if (requireRecognized && !recognized) {
    errors.push(invalid(path, new GoFormatted(goStringSlice([...versions])), `must include at least one of ${acceptedConversionReviewVersions.join(', ')}`));
  }
  return errors;
}

/** spec.conversion's own rules, then this server's refusal of webhook conversion. */
export function validateConversion(conversion: InternalConversion | undefined, requireRecognizedVersion: boolean, path: FieldPath): FieldError[] {
  if (!conversion) return [];
  const errors = validateEnumString(path.child('strategy'), conversion.strategy, ['None', 'Webhook']);
  const clientConfig = conversion.webhookClientConfig;
  const reviewVersions = conversion.conversionReviewVersions;
  if (conversion.strategy === 'Webhook') {
    const configPath = path.child('webhookClientConfig');
    if (!clientConfig) errors.push(required(configPath, 'required when strategy is set to Webhook'));
    else {
      const hasURL = clientConfig.url !== undefined && clientConfig.url !== null;
      const hasService = clientConfig.service !== undefined && clientConfig.service !== null;
      if (hasURL === hasService) errors.push(required(configPath, 'exactly one of url or service is required'));
      else if (hasURL) errors.push(...validateWebhookURL(configPath.child('url'), clientConfig.url!));
      else errors.push(...validateWebhookService(configPath.child('service'), clientConfig.service!));
    }
    errors.push(...validateConversionReviewVersions(reviewVersions, requireRecognizedVersion, path.child('conversionReviewVersions')));
    errors.push(forbidden(path.child('strategy'), 'webhook conversion is not supported by this server; use None'));
  } else {
    if (clientConfig) errors.push(forbidden(path.child('webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions?.length) errors.push(forbidden(path.child('conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
  }
  return errors;
}
