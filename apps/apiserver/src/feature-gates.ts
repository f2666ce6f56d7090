// --feature-gates for the apiserver: the cluster's 1.28 gates (@plat/featuregate), and what this
// server does about each gate whose feature it cannot switch. Six gates switch behaviour here
// (APIListChunking, APIResponseCompression, WatchList, ConsistentListFromCache,
// APIPriorityAndFairness with --enable-priority-and-fairness, ValidatingAdmissionPolicy: beta and
// off, its API versions needing --runtime-config too); the locked GA
// gates need nothing; the rest name a feature the server always has or does not implement, and
// setting those the other way is refused rather than accepted and ignored.
import { FlagError } from '@plat/apimachinery';
import { FeatureGate, clusterFeatureGates, type ClusterFeature, type FixedBehaviour } from '@plat/featuregate';

export type ApiserverFeatureGate = FeatureGate<ClusterFeature>;

const fixed: Partial<Record<ClusterFeature, FixedBehaviour>> = {
  AggregatedDiscoveryEndpoint: 'always',
  // x-kubernetes-validations rules are compiled at CRD write and enforced on every write (packages/cel).
  CustomResourceValidationExpressions: 'always',
  OpenAPIEnums: 'always',
  RemainingItemCount: 'always',
  AdmissionWebhookMatchConditions: 'never',
  APIServerIdentity: 'never',
  APIServerTracing: 'never',
  CRDValidationRatcheting: 'never',
  KMSv1: 'never',
  KMSv2: 'never',
  KMSv2KDF: 'never',
  LegacyServiceAccountTokenCleanUp: 'never',
  StorageVersionAPI: 'never',
  StorageVersionHash: 'never',
  // The server speaks HTTP/1.1 only.
  UnauthenticatedHTTP2DOSMitigation: 'never',
};

export const defaultFeatureGate: ApiserverFeatureGate = new FeatureGate(clusterFeatureGates, {}, fixed);

/** The gates as --help lists them. */
export function featureGatesHelp(): string {
  return defaultFeatureGate.knownFeatures().join(', ');
}

/** The gates --feature-gates sets, with upstream's warnings; a FlagError with upstream's text for the first refusal. */
export function parseFeatureGates(items: readonly string[]): { gates: ApiserverFeatureGate; warnings: string[] } {
  try {
    return defaultFeatureGate.withFlag(items);
  } catch (error) {
    throw new FlagError(`invalid value ${JSON.stringify(items.join(','))} for flag --feature-gates: ${error instanceof Error ? error.message : String(error)}`);
  }
}
