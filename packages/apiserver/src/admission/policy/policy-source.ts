// Every replica's view of the policies and their bindings: one list-then-watch of each (a
// StoreInformer, as the RBAC index and the CRD controller keep theirs), each policy compiled once
// per generation, and an index by resource name of the policies whose rules may select a request,
// so that a request no policy can select costs one map lookup. Each policy that joins this
// replica's set is counted in apiserver_validating_admission_policy_definition_total, as 1.28 counts
// a new entry of its definitions (a new generation or a relist does not count it again; a policy
// deleted and created again does).
import { compilePolicy, type CompiledPolicy, type ValidatingAdmissionPolicy, type ValidatingAdmissionPolicyBinding } from '@plat/api';
import { StoreInformer, type Operation, type ResourceStore } from '@plat/registry';
import type { Logger } from 'pino';
import type { PolicyMetrics } from './policy-metrics.js';

/** A policy with the bindings that name it, as one request sees them. */
export interface BoundPolicy {
  readonly policy: CompiledPolicy;
  readonly bindings: readonly ValidatingAdmissionPolicyBinding[];
}

const byName = <T extends { metadata: { name?: string } }>(a: T, b: T): number => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);

/** The candidates of one resource name, by operation. */
type Candidates = Map<string, readonly BoundPolicy[]>;

const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE'];

export class PolicySource {
  private readonly policies = new Map<string, CompiledPolicy>();
  private readonly bindings = new Map<string, ValidatingAdmissionPolicyBinding>();
  private readonly policyInformer: StoreInformer<ValidatingAdmissionPolicy>;
  private readonly bindingInformer: StoreInformer<ValidatingAdmissionPolicyBinding>;
  /** resource name (or "*") -> operation -> candidates; rebuilt on every change. */
  private index = new Map<string, Candidates>();
  private listeners: (() => void)[] = [];
  /** Policies seen, for the status writer (typeChecking). */
  readonly onPolicy: ((policy: ValidatingAdmissionPolicy) => void)[] = [];

  constructor(
    policies: ResourceStore,
    bindings: ResourceStore,
    logger: Logger,
    private readonly metrics?: PolicyMetrics,
  ) {
    this.policyInformer = new StoreInformer<ValidatingAdmissionPolicy>(
      'validatingadmissionpolicies',
      policies,
      {
        replace: (items) => {
          const listed = new Set(items.map((p) => p.metadata.name!));
          for (const name of this.policies.keys()) if (!listed.has(name)) this.policies.delete(name);
          for (const item of items) this.upsertPolicy(item, false);
          this.rebuild();
          this.listed();
        },
        upsert: (policy) => this.upsertPolicy(policy, true),
        remove: (policy) => {
          this.policies.delete(policy.metadata.name!);
          this.rebuild();
        },
      },
      logger,
    );
    this.bindingInformer = new StoreInformer<ValidatingAdmissionPolicyBinding>(
      'validatingadmissionpolicybindings',
      bindings,
      {
        replace: (items) => {
          this.bindings.clear();
          for (const item of items) this.bindings.set(item.metadata.name!, item);
          this.rebuild();
          this.listed();
        },
        upsert: (binding) => {
          this.bindings.set(binding.metadata.name!, binding);
          this.rebuild();
        },
        remove: (binding) => {
          this.bindings.delete(binding.metadata.name!);
          this.rebuild();
        },
      },
      logger,
    );
  }

  start(): void {
    this.policyInformer.start();
    this.bindingInformer.start();
  }

  stop(): void {
    this.policyInformer.stop();
    this.bindingInformer.stop();
  }

  get synced(): boolean {
    return this.policyInformer.synced && this.bindingInformer.synced;
  }

  /** Resolves once both lists are in (now, when they are). */
  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.listeners.push(resolve));
  }

  /** The compiled policy of that name, if any. */
  policy(name: string): CompiledPolicy | undefined {
    return this.policies.get(name);
  }

  /** Every policy whose rules may select a request for `resource` (its plural name), in name order. */
  candidates(resource: string, operation: Operation): readonly BoundPolicy[] {
    if (!this.index.size) return EMPTY;
    const exact = this.index.get(resource)?.get(operation);
    const wildcard = this.index.get('*')?.get(operation);
    if (!wildcard) return exact ?? EMPTY;
    if (!exact) return wildcard;
    // A policy whose rules name this resource and `*` is in both lists: it is evaluated once.
    return [...new Set([...exact, ...wildcard])].sort((a, b) => (a.policy.name < b.policy.name ? -1 : 1));
  }

  private upsertPolicy(policy: ValidatingAdmissionPolicy, rebuild: boolean): void {
    const name = policy.metadata.name!;
    const known = this.policies.get(name);
    if (!known) this.metrics?.definitionAdded();
    // Compiled once per generation: a status write (the same generation) changes nothing here.
    if (!known || known.uid !== policy.metadata.uid || known.generation !== (policy.metadata.generation ?? 0)) {
      this.policies.set(name, compilePolicy(policy));
      if (rebuild) this.rebuild();
    }
    for (const listener of this.onPolicy) listener(policy);
  }

  private rebuild(): void {
    const bound = new Map<string, ValidatingAdmissionPolicyBinding[]>();
    for (const binding of [...this.bindings.values()].sort(byName)) {
      const name = binding.spec?.policyName ?? '';
      bound.set(name, [...(bound.get(name) ?? []), binding]);
    }
    const index = new Map<string, Map<string, BoundPolicy[]>>();
    const add = (resource: string, operation: string, entry: BoundPolicy): void => {
      let byOperation = index.get(resource);
      if (!byOperation) index.set(resource, (byOperation = new Map()));
      const list = byOperation.get(operation) ?? [];
      if (!list.includes(entry)) list.push(entry);
      byOperation.set(operation, list);
    };
    for (const policy of [...this.policies.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      // A policy without bindings validates nothing; only its configuration can fail a request (a
      // paramKind no resource serves), as upstream's does, so only one with a paramKind is indexed.
      const bindings = bound.get(policy.name) ?? [];
      if (!bindings.length && !policy.spec.paramKind) continue;
      const entry: BoundPolicy = { policy, bindings };
      const rules = policy.matchConstraints.resourceRules;
      // No rules select every request (validation requires some; stored ones may predate that).
      if (!rules.length) for (const operation of OPERATIONS) add('*', operation, entry);
      for (const rule of rules) {
        const operations = rule.operations?.includes('*') ? OPERATIONS : (rule.operations ?? []);
        for (const resource of rule.resources ?? []) {
          const name = resource.split('/')[0]!;
          for (const operation of operations) add(name, operation, entry);
        }
      }
    }
    this.index = index;
  }

  /** A list is in: once both are (the informer marks itself synced after its handler), the waiters go on. */
  private listed(): void {
    queueMicrotask(() => {
      if (this.synced) for (const listener of this.listeners.splice(0)) listener();
    });
  }
}

const EMPTY: readonly BoundPolicy[] = [];
