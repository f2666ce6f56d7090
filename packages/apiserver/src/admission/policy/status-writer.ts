// The server's part of a policy's status (upstream's ValidatingAdmissionPolicyStatus controller):
// each generation of each policy type-checked once, and status.observedGeneration and
// status.typeChecking written through the status subresource. Every replica sees every policy; the
// first to write wins, the others find the generation observed (or a conflict) and stop.
import { isStatusError } from '@plat/apimachinery';
import { typeCheckPolicy, type KindResolver, type ValidatingAdmissionPolicy } from '@plat/api';
import type { KubeObject, ResourceStore } from '@plat/registry';
import type { Logger } from 'pino';

/** upstream's field manager for this status. */
export const POLICY_STATUS_MANAGER = 'validatingadmissionpolicy-status-controller';

const RETRY_MS = 1000;

export class PolicyStatusWriter {
  private readonly pending = new Map<string, ValidatingAdmissionPolicy>();
  private working = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: ResourceStore,
    private readonly kinds: KindResolver,
    private readonly logger: Logger,
  ) {}

  /** A policy seen by the watch: its status is written when its generation has not been observed. */
  observe(policy: ValidatingAdmissionPolicy): void {
    if (this.stopped || policy.status?.observedGeneration === policy.metadata.generation) return;
    this.pending.set(policy.metadata.name!, policy);
    if (!this.working) void this.work();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
  }

  private async work(): Promise<void> {
    this.working = true;
    try {
      while (this.pending.size && !this.stopped) {
        const [name, policy] = this.pending.entries().next().value as [string, ValidatingAdmissionPolicy];
        this.pending.delete(name);
        try {
          await this.write(policy);
        } catch (error) {
          this.logger.warn({ err: error, policy: name }, 'validating admission policy: status write failed; retrying');
          clearTimeout(this.retry);
          this.retry = setTimeout(() => this.observe(policy), RETRY_MS);
        }
      }
    } finally {
      this.working = false;
    }
  }

  private async write(policy: ValidatingAdmissionPolicy): Promise<void> {
    const warnings = typeCheckPolicy(policy, this.kinds);
    const status = {
      ...policy.status,
      observedGeneration: policy.metadata.generation!,
      typeChecking: warnings.length ? { expressionWarnings: warnings } : {},
    };
    const updated = { ...structuredClone(policy), status } as KubeObject;
    try {
      // Written against the version seen: a newer generation brings its own event.
      await this.store.update('', policy.metadata.name!, updated, { subresource: 'status', manager: POLICY_STATUS_MANAGER });
    } catch (error) {
      if (isStatusError(error) && (error.code === 409 || error.code === 404)) return;
      throw error;
    }
  }
}
