// The config producer (upstream's priority-and-fairness-config-producer post-start hook and its
// ensurer): the bootstrap PriorityLevelConfigurations and FlowSchemas kept in the API. At start,
// tried once a second until a pass succeeds (up to 5 minutes, as upstream); then every minute.
// Each pass: the suggested levels and schemas, then the mandatory ones, then the dangling
// bootstrap objects (annotated autoupdate-spec "true", no longer in the bootstrap set) deleted.
// - Missing objects are created.
// - Mandatory objects: the spec is always put back and the annotation forced to "true" (the
//   exempt level's spec.exempt is the operator's to change).
// - Suggested objects: kept as bootstrap has them while autoupdate-spec is "true" (as Go's
//   ParseBool reads it); with the annotation missing or unparsable, kept if the object was never
//   changed (generation 1), and the annotation written "true", else written "false".
// Several replicas may run passes at once: a create that finds the object (409 AlreadyExists), an
// update that finds it changed (409 Conflict) or a delete that finds it gone (404) is left to the
// next pass, which reads again; the writes are the same from every replica, so they converge.
import type { Logger } from 'pino';
import { isStatusError } from '@plat/apimachinery';
import { AUTO_UPDATE_ANNOTATION, mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedConfiguration, type FlowSchema, type PriorityLevelConfiguration } from '@plat/flowcontrol';
import type { KubeObject, ResourceStore } from '@plat/registry';

/** Upstream's field manager for the bootstrap objects. */
export const PRODUCER_FIELD_MANAGER = 'api-priority-and-fairness-config-producer-v1';

const RETRY_MS = 1000;
const RETRY_FOR_MS = 5 * 60_000;
const RECONCILE_MS = 60_000;

type Wanted = PriorityLevelConfiguration | FlowSchema;

/** Go's strconv.ParseBool. */
function parseBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** A value as it compares semantically: absent, null, false and empty lists are alike (omitempty). */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined || v === null || v === false || (Array.isArray(v) && v.length === 0)) continue;
      out[key] = normalized(v);
    }
    return out;
  }
  return value;
}

export function specsEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalized(a)) === JSON.stringify(normalized(b));
}

/** The spec a mandatory object must have: for the exempt level, what its spec.exempt has is kept. */
function mandatorySpec(wanted: Wanted, existing: KubeObject): unknown {
  const spec = structuredClone(wanted.spec) as unknown as Record<string, unknown>;
  if (wanted.metadata.name === 'exempt' && 'type' in spec && spec.type === 'Exempt') {
    const had = (existing.spec as { exempt?: Record<string, unknown> } | undefined)?.exempt;
    if (had) spec.exempt = { ...(spec.exempt as object), ...had };
  }
  return spec;
}

export interface ProducerStores {
  flowSchemas: ResourceStore;
  priorityLevels: ResourceStore;
  /** flowcontrol.apiserver.<domain>/v1beta3 */
  apiVersion: string;
}

export class ConfigProducer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  /** Whether a pass has succeeded (readiness of the post-start hook). */
  done = false;

  constructor(
    private readonly stores: ProducerStores,
    private readonly domain: string,
    private readonly logger: Logger,
    private readonly reconcileMs = RECONCILE_MS,
  ) {}

  start(): void {
    const startedAt = Date.now();
    const attempt = async (): Promise<void> => {
      if (this.stopped) return;
      const ok = await this.pass();
      if (this.stopped) return;
      if (!ok && Date.now() - startedAt < RETRY_FOR_MS) {
        this.timer = setTimeout(() => void attempt(), RETRY_MS);
        return;
      }
      if (!ok) this.logger.error('priority and fairness: the bootstrap configuration could not be ensured in 5 minutes; trying every minute');
      this.timer = setInterval(() => void this.pass(), this.reconcileMs);
      this.timer.unref();
    };
    void attempt();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.timer);
  }

  /** One pass; true if every object is as it should be (no write was left for later). */
  async pass(): Promise<boolean> {
    if (this.running) {
      await this.running;
      return this.done;
    }
    let ok = true;
    const run = async () => {
      const suggested = suggestedConfiguration(this.domain);
      const pl = { store: this.stores.priorityLevels, kind: 'PriorityLevelConfiguration' };
      const fs = { store: this.stores.flowSchemas, kind: 'FlowSchema' };
      try {
        for (const wanted of suggested.priorityLevels) ok = (await this.ensure(pl, wanted, false)) && ok;
        for (const wanted of suggested.flowSchemas) ok = (await this.ensure(fs, wanted, false)) && ok;
        for (const wanted of mandatoryPriorityLevels) ok = (await this.ensure(pl, wanted, true)) && ok;
        for (const wanted of mandatoryFlowSchemas) ok = (await this.ensure(fs, wanted, true)) && ok;
        const plNames = new Set([...suggested.priorityLevels, ...mandatoryPriorityLevels].map((o) => o.metadata.name));
        const fsNames = new Set([...suggested.flowSchemas, ...mandatoryFlowSchemas].map((o) => o.metadata.name));
        ok = (await this.removeDangling(pl.store, plNames)) && ok;
        ok = (await this.removeDangling(fs.store, fsNames)) && ok;
      } catch (error) {
        ok = false;
        if (!this.stopped) this.logger.warn({ err: error }, 'priority and fairness: ensuring the bootstrap configuration failed; retrying');
      }
      if (ok) this.done = true;
    };
    this.running = run();
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
    return ok;
  }

  private async ensure(kind: { store: ResourceStore; kind: string }, wanted: Wanted, mandatory: boolean): Promise<boolean> {
    const name = wanted.metadata.name;
    const existing = await kind.store.get('', name).catch((error: unknown) => {
      if (isStatusError(error) && error.code === 404) return undefined;
      throw error;
    });
    if (!existing) {
      const object = {
        apiVersion: this.stores.apiVersion,
        kind: kind.kind,
        metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
        spec: structuredClone(wanted.spec),
      } as unknown as KubeObject;
      return this.tolerate(kind.store.create('', object, { manager: PRODUCER_FIELD_MANAGER }));
    }
    const annotation = existing.metadata.annotations?.[AUTO_UPDATE_ANNOTATION];
    const parsed = parseBool(annotation);
    let autoUpdate: boolean;
    if (mandatory) autoUpdate = true;
    else if (parsed !== undefined) autoUpdate = parsed;
    else autoUpdate = existing.metadata.generation === 1 || existing.metadata.generation === undefined;
    const spec = mandatory ? mandatorySpec(wanted, existing) : wanted.spec;
    const wantAnnotation = autoUpdate ? 'true' : 'false';
    const specChanges = autoUpdate && !specsEqual(existing.spec, spec);
    const annotationChanges = mandatory ? annotation !== 'true' : parsed === undefined;
    if (!specChanges && !annotationChanges) return true;
    const updated = structuredClone(existing) as KubeObject & { spec?: unknown };
    updated.metadata.annotations = { ...updated.metadata.annotations, [AUTO_UPDATE_ANNOTATION]: wantAnnotation };
    if (autoUpdate) updated.spec = structuredClone(spec);
    return this.tolerate(kind.store.update('', name, updated, { manager: PRODUCER_FIELD_MANAGER }));
  }

  private async removeDangling(store: ResourceStore, wanted: ReadonlySet<string>): Promise<boolean> {
    const list = await store.list('', {});
    let ok = true;
    for (const object of list.items) {
      const name = object.metadata.name!;
      if (wanted.has(name) || parseBool(object.metadata.annotations?.[AUTO_UPDATE_ANNOTATION]) !== true) continue;
      ok = (await this.tolerate(store.delete('', name, { preconditions: { uid: object.metadata.uid!, resourceVersion: object.metadata.resourceVersion! } }))) && ok;
    }
    return ok;
  }

  /** A write another replica (or an operator) got in first is left to the next pass. */
  private async tolerate(write: Promise<unknown>): Promise<boolean> {
    try {
      await write;
      return true;
    } catch (error) {
      if (isStatusError(error) && (error.code === 409 || error.code === 404)) return false;
      throw error;
    }
  }
}
