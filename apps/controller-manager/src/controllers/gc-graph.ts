// The garbage collector's graph: each object as a node with its owner references and its
// dependents, and how references name an owner (upstream's graph.go).
import type { KubeObject, OwnerReference } from '@plat/client';

/** Where an object is: its coordinates and uid (upstream's objectReference). */
export interface Identity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** '' for a cluster-scoped object. */
  namespace: string;
}

export const identityKey = (i: Identity): string => JSON.stringify([i.apiVersion, i.kind, i.namespace, i.name, i.uid]);
export const sameIdentity = (a: Identity, b: Identity): boolean => identityKey(a) === identityKey(b);

export class GraphNode {
  readonly dependents = new Set<GraphNode>();
  owners: OwnerReference[] = [];
  beingDeleted = false;
  deletingDependents = false;

  constructor(
    public identity: Identity,
    /** A node made up from a dependent's ownerReference, not yet seen by an informer. */
    public virtual: boolean,
  ) {}

  /** Dependents whose reference to this node blocks its deletion. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((d) => d.owners.some((o) => o.uid === this.identity.uid && o.blockOwnerDeletion));
  }

  toString(): string {
    const { apiVersion, kind, namespace, name, uid } = this.identity;
    return `[${apiVersion}/${kind}, namespace: ${namespace}, name: ${name}, uid: ${uid}]`;
  }
}

export const isBeingDeleted = (o: KubeObject): boolean => !!o.metadata.deletionTimestamp;
export const hasFinalizer = (o: KubeObject, f: string): boolean => (o.metadata.finalizers ?? []).includes(f);
export const waitsFor = (o: KubeObject | undefined, f: string): boolean => !!o && isBeingDeleted(o) && hasFinalizer(o, f);

/** A reference names an owner by these coordinates (upstream's ownerReferenceMatchesCoordinates). */
export const referenceMatches = (ref: OwnerReference, identity: Identity): boolean =>
  ref.uid === identity.uid && ref.name === identity.name && ref.kind === identity.kind && ref.apiVersion === identity.apiVersion;

/** Dependents that refer to `identity` by its exact coordinates, and those that do not. */
export function partitionDependents(dependents: Iterable<GraphNode>, identity: Identity): [GraphNode[], GraphNode[]] {
  const matching: GraphNode[] = [];
  const other: GraphNode[] = [];
  for (const dependent of dependents) {
    const namespaceOk = !identity.namespace || dependent.identity.namespace === identity.namespace;
    const refers = dependent.owners.some((ref) => ref.uid === identity.uid && referenceMatches(ref, identity));
    (namespaceOk && refers ? matching : other).push(dependent);
  }
  return [matching, other];
}

/** A bounded map, oldest out first. */
export class Recent<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly capacity = 500) {}
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
  get(key: string): V | undefined {
    return this.entries.get(key);
  }
}
