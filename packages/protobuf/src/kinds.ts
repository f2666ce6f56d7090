// Which kinds have a Protobuf form, as their definitions register them, and the message each is carried in.
import { deriveEmitRules, deriveListRules } from './emit.js';
import { findMessageType, messageType } from './schema.js';

export interface ProtobufKind {
  /**
   * The API group without its domain: "" for core, "rbac.authorization" for
   * rbac.authorization.plat.io and rbac.authorization.k8s.io alike.
   */
  group: string;
  version: string;
  kind: string;
  /** The full name of the message in upstream's .proto files, e.g. `k8s.io.api.rbac.v1.Role`. */
  message: string;
}

export interface GroupVersionKind {
  /** The group as the API serves it (`rbac.authorization.plat.io`), or without its domain. */
  group: string;
  version: string;
  kind: string;
}

const META_PACKAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** Kinds that upstream registers in every group version, so they are found under any group. */
const everyGroupKinds: readonly ProtobufKind[] = [
  { group: '', version: 'v1', kind: 'Status', message: `${META_PACKAGE}.Status` },
  { group: '', version: 'v1', kind: 'DeleteOptions', message: `${META_PACKAGE}.DeleteOptions` },
];

/**
 * What a kind's definition says of its Protobuf form (a ResourceDefinition has this shape): the
 * message its objects are carried in (its list's is the same name with List), and the JSON paths of
 * its pointer fields. Its schema gives the fields Go always writes (its required ones).
 */
export interface ProtobufKindSource {
  /** The group as the definition names it: `rbac.authorization.{domain}`, or without a domain. */
  group: string;
  version: string;
  kind: string;
  schema: Record<string, unknown>;
  protobuf?: { message: string; pointers?: readonly string[] };
}

const byKey = new Map<string, ProtobufKind>();
const everyGroup = new Map(everyGroupKinds.map((k) => [k.kind, k]));
/** Groups (without their domain) of the registered kinds, longest first. */
let namedGroups: string[] = [];

/** Every kind registered so far, Status and DeleteOptions among them. */
export function protobufKinds(): ProtobufKind[] {
  return [...byKey.values(), ...everyGroupKinds];
}

/**
 * Registers the Protobuf form of each kind that has one, and derives how its messages' fields read
 * back (emit.ts). Registering a kind again with the same form changes nothing; every kind must be
 * registered before the first object is encoded or decoded.
 */
export function registerProtobufKinds(sources: readonly ProtobufKindSource[]): void {
  for (const source of sources) {
    if (source.protobuf) register(source, source.protobuf);
  }
  namedGroups = [...new Set([...byKey.values()].map((k) => k.group).filter((g) => g !== ''))].sort((a, b) => b.length - a.length);
}

function register(source: ProtobufKindSource, form: NonNullable<ProtobufKindSource['protobuf']>): void {
  const group = source.group.replace(/\.?\{domain\}$/, '');
  const { message, pointers = [] } = form;
  deriveEmitRules(messageType(message), source.schema, pointers);
  byKey.set(`${group}/${source.version}/${source.kind}`, { group, version: source.version, kind: source.kind, message });
  // The never-stored kinds (access reviews, TokenRequest) have no list.
  const list = findMessageType(`${message}List`);
  if (!list) return;
  deriveListRules(list);
  byKey.set(`${group}/${source.version}/${source.kind}List`, { group, version: source.version, kind: `${source.kind}List`, message: `${message}List` });
}

/**
 * The group without its domain: `rbac.authorization.plat.io` and `rbac.authorization.k8s.io` (or
 * any other domain) become `rbac.authorization`; "" stays the core group. A group none of our kinds
 * belongs to is returned unchanged.
 */
export function protobufGroup(group: string): string {
  if (group === '') return '';
  for (const known of namedGroups) {
    if (group === known || group.startsWith(`${known}.`)) return known;
  }
  return group;
}

/** The registered kind for a group (with or without its domain), version and kind, if any. */
export function findProtobufKind(group: string, version: string, kind: string): ProtobufKind | undefined {
  return byKey.get(`${protobufGroup(group)}/${version}/${kind}`) ?? everyGroup.get(kind);
}

/** Whether objects of this kind can be carried as Protobuf. */
export function hasProtobuf(group: string, version: string, kind: string): boolean {
  return findProtobufKind(group, version, kind) !== undefined;
}

/** Splits an apiVersion ("v1", "rbac.authorization.plat.io/v1") into group and version. */
export function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
