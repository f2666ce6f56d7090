// The Kubernetes 1.28 gates that touch what the apiserver and the controller-manager serve, with
// upstream's stage, default and lock (k8s.io/apiserver's, apiextensions-apiserver's and the
// kube features about the kinds we serve). Upstream's components share one list: a cluster-wide
// --feature-gates value given to each is accepted by each. Gates removed by 1.28 (AdvancedAuditing,
// DryRun, ...) are not here, so they are refused as unknown, as upstream refuses them.
import type { FeatureSpec } from './feature-gate.js';

export const clusterFeatureGates = {
  AdmissionWebhookMatchConditions: { default: true, stage: 'BETA' },
  AggregatedDiscoveryEndpoint: { default: true, stage: 'BETA' },
  APIListChunking: { default: true, stage: 'BETA' },
  APIPriorityAndFairness: { default: true, stage: 'BETA' },
  APIResponseCompression: { default: true, stage: 'BETA' },
  APISelfSubjectReview: { default: true, stage: 'GA', lockToDefault: true },
  APIServerIdentity: { default: true, stage: 'BETA' },
  APIServerTracing: { default: true, stage: 'BETA' },
  ConsistentListFromCache: { default: false, stage: 'ALPHA' },
  CRDValidationRatcheting: { default: false, stage: 'ALPHA' },
  CustomResourceValidationExpressions: { default: true, stage: 'BETA' },
  EfficientWatchResumption: { default: true, stage: 'GA', lockToDefault: true },
  KMSv1: { default: true, stage: 'DEPRECATED' },
  KMSv2: { default: true, stage: 'BETA' },
  KMSv2KDF: { default: false, stage: 'BETA' },
  LegacyServiceAccountTokenCleanUp: { default: false, stage: 'ALPHA' },
  LegacyServiceAccountTokenNoAutoGeneration: { default: true, stage: 'GA', lockToDefault: true },
  LegacyServiceAccountTokenTracking: { default: true, stage: 'GA', lockToDefault: true },
  OpenAPIEnums: { default: true, stage: 'BETA' },
  OpenAPIV3: { default: true, stage: 'GA', lockToDefault: true },
  RemainingItemCount: { default: true, stage: 'BETA' },
  RemoveSelfLink: { default: true, stage: 'GA', lockToDefault: true },
  ServerSideApply: { default: true, stage: 'GA', lockToDefault: true },
  ServerSideFieldValidation: { default: true, stage: 'GA', lockToDefault: true },
  StorageVersionAPI: { default: false, stage: 'ALPHA' },
  StorageVersionHash: { default: true, stage: 'BETA' },
  UnauthenticatedHTTP2DOSMitigation: { default: false, stage: 'BETA' },
  ValidatingAdmissionPolicy: { default: false, stage: 'BETA' },
  WatchBookmark: { default: true, stage: 'GA', lockToDefault: true },
  WatchList: { default: false, stage: 'ALPHA' },
} as const satisfies Record<string, FeatureSpec>;

export type ClusterFeature = keyof typeof clusterFeatureGates;
