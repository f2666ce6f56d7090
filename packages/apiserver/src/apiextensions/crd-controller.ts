// Every replica's view of the CustomResourceDefinitions, as upstream's apiextensions server keeps
// it: the naming controller (which requested names a definition may have, NamesAccepted), the
// establishing controller (Established once the names are accepted) and the handler that serves
// each Established definition's served versions. The definitions come from a watch of their
// store, so a definition written through any replica is served by every replica as soon as its
// event arrives; a deleted one stops being served.
import { isStatusError, newMethodNotSupported } from '@plat/apimachinery';
import { apiApprovalCondition, decideNames, findCondition, isConditionTrue, sameCondition, sameNames, setCondition, type CustomResourceDefinition } from '@plat/api';
import { formatTimestamp, StoreInformer, type StoreCheck, type KubeObject, type ResourceDefinition, type ResourceStore } from '@plat/registry';
import type { Logger } from 'pino';
import type { HealthCheck } from '@plat/filters';
import type { ResourceCatalog } from '@plat/endpoints';

/** The served versions of a definition, each as a resource definition of the one generic store. */
export type CustomResourceBuilder = (crd: CustomResourceDefinition) => ResourceDefinition[];

interface Served {
  /** What the served definitions were built from: a change rebuilds them. */
  signature: string;
  group: string;
  resource: string;
  versions: string[];
  /** Listed in discovery only: the group is a built-in one, whose paths the built-in kinds' handlers claim. */
  unserved: boolean;
  terminating: boolean;
}

const RETRY_MS = 1000;

export interface CustomResourceDefinitionControllerOptions {
  catalog: ResourceCatalog;
  domain: string;
  build: CustomResourceBuilder;
  logger: Logger;
  /** The field manager of the status this controller writes. */
  manager: string;
  now?: () => Date;
}

export class CustomResourceDefinitionController implements HealthCheck {
  readonly name = 'poststarthook/crd-informer-synced';
  private readonly crds = new Map<string, CustomResourceDefinition>();
  private readonly served = new Map<string, Served>();
  private readonly pending = new Set<string>();
  private readonly informer: StoreInformer<CustomResourceDefinition>;
  private readonly store: ResourceStore;
  private readonly now: () => Date;
  private working = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: CustomResourceDefinitionControllerOptions) {
    this.now = options.now ?? (() => new Date());
    this.store = options.catalog.store(`apiextensions.${options.domain}`, 'v1', 'customresourcedefinitions');
    this.informer = new StoreInformer<CustomResourceDefinition>('customresourcedefinitions', this.store, {
      replace: (items) => {
        const listed = new Set(items.map((crd) => crd.metadata.name!));
        for (const name of [...this.crds.keys(), ...this.served.keys()]) if (!listed.has(name)) this.forget(name);
        for (const crd of items) this.upsert(crd);
      },
      upsert: (crd) => this.upsert(crd),
      remove: (crd) => this.forget(crd.metadata.name!),
    }, options.logger);
  }

  start(): void {
    this.informer.start();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    this.informer.stop();
  }

  async check(): Promise<void> {
    // Listed, and every definition of the list handled (served when Established).
    if (!this.informer.synced || this.pending.size > 0 || this.working) throw new Error('custom resource definitions not listed and served yet');
  }

  /**
   * Admission: nothing is created of a custom resource whose definition is being deleted (405, as
   * upstream's custom resource handler answers).
   */
  readonly admission: StoreCheck = ({ operation, resource }) => {
    if (operation !== 'CREATE' || !resource.definition.unstructured) return;
    const served = this.served.get(`${resource.resource}.${resource.group}`);
    if (!served?.terminating) return;
    const error = newMethodNotSupported(resource.groupResource, 'create');
    error.status.message = 'create not allowed while custom resource definition is terminating';
    throw error;
  };

  private upsert(crd: CustomResourceDefinition): void {
    this.crds.set(crd.metadata.name!, crd);
    this.enqueue(crd.metadata.name!);
  }

  private forget(name: string): void {
    const gone = this.crds.get(name);
    this.crds.delete(name);
    this.enqueue(name);
    // Its names are free now: the others of its group may have them.
    if (gone) for (const other of this.crds.values()) if (other.spec.group === gone.spec.group) this.enqueue(other.metadata.name!);
  }

  private enqueue(name: string): void {
    this.pending.add(name);
    if (!this.working) void this.work();
  }

  private async work(): Promise<void> {
    this.working = true;
    try {
      while (this.pending.size && !this.stopped) {
        const name = this.pending.values().next().value as string;
        this.pending.delete(name);
        try {
          await this.sync(name);
        } catch (error) {
          this.options.logger.warn({ err: error, crd: name }, 'custom resource definition: sync failed; retrying');
          clearTimeout(this.retry);
          this.retry = setTimeout(() => this.enqueue(name), RETRY_MS);
        }
      }
    } finally {
      this.working = false;
    }
  }

  private async sync(name: string): Promise<void> {
    const crd = this.crds.get(name);
    if (!crd) {
      this.unserve(name);
      return;
    }
    if (!sameNames(crd.spec.names, crd.status?.acceptedNames)) {
      const decision = decideNames(crd, this.crds.values());
      const changed =
        !sameNames(decision.acceptedNames, crd.status?.acceptedNames) ||
        !sameCondition({ ...decision.namesAccepted }, findCondition(crd, 'NamesAccepted')) ||
        !sameCondition({ ...decision.established }, findCondition(crd, 'Established'));
      if (changed) {
        // The write comes back as an event, and the definition is looked at again then.
        await this.writeStatus(crd, (copy, now) => {
          copy.status = { ...copy.status, acceptedNames: decision.acceptedNames };
          setCondition(copy, decision.namesAccepted, now);
          setCondition(copy, decision.established, now);
        });
        return;
      }
    }
    // Upstream's API approval controller: what the protected groups' annotation says, as a condition.
    const approval = apiApprovalCondition(crd, this.options.domain);
    if (approval && !sameCondition({ ...approval }, findCondition(crd, approval.type))) {
      await this.writeStatus(crd, (copy, now) => setCondition(copy, approval, now));
      return;
    }
    if (isConditionTrue(crd, 'NamesAccepted') && !isConditionTrue(crd, 'Established')) {
      await this.writeStatus(crd, (copy, now) =>
        setCondition(copy, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now),
      );
      return;
    }
    if (isConditionTrue(crd, 'Established')) this.serve(crd);
    else this.unserve(name);
  }

  /** Writes a status change; a conflict or a deletion meanwhile is left to the event that caused it. */
  private async writeStatus(crd: CustomResourceDefinition, change: (copy: CustomResourceDefinition, now: string) => void): Promise<void> {
    const copy = structuredClone(crd);
    change(copy, formatTimestamp(this.now()));
    try {
      await this.store.update('', crd.metadata.name!, copy as unknown as KubeObject, { subresource: 'status', manager: this.options.manager });
    } catch (error) {
      if (isStatusError(error) && (error.code === 409 || error.code === 404)) return;
      throw error;
    }
  }

  private serve(crd: CustomResourceDefinition): void {
    const name = crd.metadata.name!;
    const terminating = isConditionTrue(crd, 'Terminating');
    const signature = JSON.stringify([crd.metadata.uid, crd.spec, crd.status?.acceptedNames]);
    const before = this.served.get(name);
    if (before?.signature === signature) {
      before.terminating = terminating;
      return;
    }
    const { catalog } = this.options;
    const definitions = this.options.build(crd);
    const group = crd.spec.group;
    const resource = crd.status?.acceptedNames?.plural ?? crd.spec.names.plural;
    // As upstream: the built-in kinds' handlers claim every path of their groups (the group's
    // discovery web service is their prefix), so the definition's versions are listed in discovery
    // and every request for them is a 404.
    const unserved = catalog.isBuiltInGroup(group);
    const versions: string[] = [];
    if (before) this.withdraw(before, (version) => before.unserved !== unserved || before.resource !== resource || before.group !== group || !definitions.some((d) => d.version === version));
    for (const definition of definitions) {
      if (unserved) {
        catalog.listUnserved(definition as ResourceDefinition<KubeObject>);
        versions.push(definition.version);
        continue;
      }
      try {
        catalog.replace(definition as ResourceDefinition<KubeObject>);
        versions.push(definition.version);
      } catch (error) {
        this.options.logger.warn({ err: error, crd: name, version: definition.version }, 'custom resource definition: a version cannot be served');
      }
    }
    this.served.set(name, { signature, group, resource, versions, unserved, terminating });
    if (unserved) this.options.logger.info({ crd: name, group, versions }, 'custom resource of a built-in group: listed in discovery, not served');
    else this.options.logger.info({ crd: name, versions }, 'serving custom resource');
  }

  /** Stops serving (or listing) the versions of `served` that `which` picks. */
  private withdraw(served: Served, which: (version: string) => boolean = () => true): void {
    for (const version of served.versions) {
      if (!which(version)) continue;
      if (served.unserved) this.options.catalog.unlistUnserved(served.group, version, served.resource);
      else this.options.catalog.remove(served.group, version, served.resource);
    }
  }

  private unserve(name: string): void {
    const before = this.served.get(name);
    if (!before) return;
    this.withdraw(before);
    this.served.delete(name);
    this.options.logger.info({ crd: name }, 'stopped serving custom resource');
  }
}
