// spec.conversion of a CRD: strategy None, or Webhook with where to reach the webhook and which
// ConversionReview versions it speaks. Upstream reports the webhook's fields at its internal
// paths (spec.conversion.webhookClientConfig, spec.conversion.conversionReviewVersions), so do we.
// This server converts between versions only by None: a valid Webhook conversion is refused.
import {
  GoFormatted,
  forbidden,
  goStringSlice,
  invalid,
  isDNS1035Label,
  isDNS1123Subdomain,
  notSupported,
  required,
  type FieldError,
  type FieldPath,
  parseGoURL,
} from '@plat/apimachinery';
import type { ServiceReference, WebhookClientConfig } from './types.js';

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

const urlForm = '; desired format: https://host[/path]';

/** A webhook URL: https, a host, no user, query or fragment. */
export function validateWebhookURL(path: FieldPath, url: string): FieldError[] {
  let parsed;
  try {
    parsed = parseGoURL(url);
  } catch (error) {
    return [required(path, `url must be a valid URL: ${(error as Error).message}${urlForm}`)];
  }
  const errors: FieldError[] = [];
  if (parsed.scheme !== 'https') errors.push(invalid(path, parsed.scheme, `'https' is the only allowed URL scheme${urlForm}`));
  if (!parsed.host) errors.push(invalid(path, parsed.host, `host must be specified${urlForm}`));
  if (parsed.user !== undefined) errors.push(invalid(path, parsed.user, 'user information is not permitted in the URL'));
  if (parsed.fragment) errors.push(invalid(path, parsed.fragment, 'fragments are not permitted in the URL'));
  if (parsed.rawQuery) errors.push(invalid(path, parsed.rawQuery, 'query parameters are not permitted in the URL'));
  return errors;
}

/** A webhook service reference: name, namespace, a port, and a path of DNS-subdomain segments. */
export function validateWebhookService(path: FieldPath, service: ServiceReference): FieldError[] {
  const errors: FieldError[] = [];
  if (!service.name) errors.push(required(path.child('name'), 'service name is required'));
  if (!service.namespace) errors.push(required(path.child('namespace'), 'service namespace is required'));
  const port = service.port ?? 0;
  if (!(port >= 1 && port <= 65535)) errors.push(invalid(path.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const urlPath = service.path;
  if (urlPath === undefined || urlPath === null || urlPath === '' || urlPath === '/') return errors;
  const p = path.child('path');
  if (urlPath === '//') return [...errors, invalid(p, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errors.push(invalid(p, urlPath, "must start with a '/'"));
  let segments = urlPath.slice(1);
  if (segments.endsWith('/')) segments = segments.slice(0, -1);
  segments.split('/').forEach((segment, i) => {
    if (!segment) {
      errors.push(invalid(p, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const problem of isDNS1123Subdomain(segment)) errors.push(invalid(p, urlPath, `segment[${i}]: ${problem}`));
  });
  return errors;
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
