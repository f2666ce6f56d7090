// One write as every admission plugin sees it (upstream's admission.Attributes and the webhooks'
// VersionedAttributes): who, what and how; the namespace object, read once when first asked for;
// the resources that serve the same objects (for matchPolicy Equivalent); the objects as another
// version of the resource serves them; and upstream's AdmissionRequest built from it, which the
// policies' `request` variable and the webhooks' AdmissionReview both read.
import { isStatusError, type UserInfo } from '@plat/apimachinery';
import type { EquivalentResource, GroupVersionKind, GroupVersionResource, MatchRequest } from '@plat/api';
import type { AdmissionAttributes, KubeObject, Operation, ResolvedResource } from '@plat/registry';

/** What the view reads of the server: namespaces, the resources served, conversion between versions. */
export interface RequestViewSources {
  /** The namespace as the watch cache has it; a 404 StatusError where it has not seen it. */
  peekNamespace(name: string): Promise<Readonly<KubeObject>>;
  /** The namespace read from storage; a 404 StatusError where it does not exist. */
  getNamespace(name: string): Promise<Readonly<KubeObject>>;
  /** The resources that serve the same stored objects as `resource` (itself included), with the subresource where one is asked. */
  equivalents(resource: ResolvedResource, subresource: string): EquivalentResource[];
  /** `object` of `from` as `to` serves it (conversion may call out: a promise); undefined where `to` is not served. */
  convert(object: KubeObject, from: ResolvedResource, to: GroupVersionResource): Promise<KubeObject | undefined>;
}

/** The server itself, for its own writes (bootstrap): upstream's loopback user. */
const SERVER_USER: UserInfo = { name: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

const gvr = (r: { group: string; version: string; resource: string }): GroupVersionResource => ({ group: r.group, version: r.version, resource: r.resource });
const sameVersion = (a: GroupVersionResource, b: GroupVersionResource): boolean => a.group === b.group && a.version === b.version && a.resource === b.resource;

export class AdmissionRequestView implements MatchRequest {
  readonly uid: string;
  readonly operation: Operation;
  /** The resource and kind of the request itself (the kind of a subresource served as another kind, its own). */
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
  readonly subresource: string;
  /** As upstream's attributes: a Namespace's namespace is its own name. */
  readonly namespace: string;
  readonly name: string;
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
  readonly user: UserInfo;
  readonly dryRun: boolean;
  readonly options: Readonly<Record<string, unknown>> | undefined;
  private namespaceObjectRead: Promise<KubeObject | undefined> | undefined;
  private equivalentsFound: EquivalentResource[] | undefined;
  private readonly converted = new Map<string, Promise<{ object: KubeObject | undefined; oldObject: KubeObject | undefined }>>();

  constructor(
    readonly attributes: AdmissionAttributes,
    private readonly sources: RequestViewSources,
  ) {
    const { resource, subresource = '', name } = attributes;
    this.uid = attributes.uid;
    this.operation = attributes.operation;
    this.resource = gvr(resource);
    this.kind = attributes.kind;
    this.subresource = subresource;
    this.namespace = this.isNamespace ? name : attributes.namespace;
    this.name = name;
    this.object = attributes.object;
    this.oldObject = attributes.oldObject;
    this.user = attributes.user ?? SERVER_USER;
    this.dryRun = attributes.dryRun;
    this.options = attributes.options;
  }

  private get isNamespace(): boolean {
    const { resource } = this.attributes;
    return resource.group === '' && resource.resource === 'namespaces';
  }

  /**
   * The request's namespace object, read once (the watch cache's copy, or storage's for one it has not
   * seen yet); none for a cluster-scoped request or a Namespace itself. A namespace that does not
   * exist is a 404 StatusError.
   */
  namespaceObject(): Promise<KubeObject | undefined> {
    const name = this.namespace;
    if (!name || this.isNamespace) return Promise.resolve(undefined);
    this.namespaceObjectRead ??= (async () => {
      try {
        return (await this.sources.peekNamespace(name)) as KubeObject;
      } catch (error) {
        // Perhaps created a moment ago through another replica: storage has the last word.
        if (isStatusError(error) && error.code === 404) return (await this.sources.getNamespace(name)) as KubeObject;
        throw error;
      }
    })();
    return this.namespaceObjectRead;
  }

  async namespaceLabels(): Promise<Readonly<Record<string, string>> | undefined> {
    return (await this.namespaceObject())?.metadata.labels;
  }

  equivalents(): readonly EquivalentResource[] {
    this.equivalentsFound ??= this.sources.equivalents(this.attributes.resource, this.subresource);
    return this.equivalentsFound;
  }

  /**
   * The objects as `resource` serves them: the request's own, or converted to another version of the
   * resource a rule matched it as (matchPolicy Equivalent). A subresource's objects are its kind's
   * and are not converted. Converted once per version.
   */
  objectsAs(resource: GroupVersionResource): Promise<{ object: KubeObject | undefined; oldObject: KubeObject | undefined }> {
    const own = { object: this.object, oldObject: this.oldObject };
    if (sameVersion(resource, this.resource) || this.subresource) return Promise.resolve(own);
    const key = `${resource.group}/${resource.version}/${resource.resource}`;
    let seen = this.converted.get(key);
    if (!seen) {
      const from = this.attributes.resource;
      const convert = async (object: KubeObject | undefined): Promise<KubeObject | undefined> =>
        object ? ((await this.sources.convert(object, from, resource)) ?? object) : undefined;
      seen = Promise.all([convert(this.object), convert(this.oldObject)]).then(([object, oldObject]) => ({ object, oldObject }));
      this.converted.set(key, seen);
    }
    return seen;
  }

  /**
   * upstream's AdmissionRequest (admission.k8s.io/v1) as a policy's `request` variable holds it
   * (CreateAdmissionRequest): for the request seen as `resource` and `kind` (its own by default, or
   * what a rule matched it as), without its uid and objects, its empty fields left out as
   * ToUnstructured leaves them.
   */
  admissionRequest(seenAs: { resource: GroupVersionResource; kind: GroupVersionKind } = this): Record<string, unknown> {
    const { user } = this;
    const userInfo: Record<string, unknown> = {};
    if (user.name) userInfo.username = user.name;
    if (user.uid) userInfo.uid = user.uid;
    if (user.groups.length) userInfo.groups = user.groups;
    if (user.extra && Object.keys(user.extra).length) userInfo.extra = user.extra;
    return {
      kind: seenAs.kind,
      resource: seenAs.resource,
      ...(this.subresource && { subResource: this.subresource }),
      requestKind: this.kind,
      requestResource: this.resource,
      ...(this.subresource && { requestSubResource: this.subresource }),
      ...(this.name && { name: this.name }),
      ...(this.namespace && { namespace: this.namespace }),
      operation: this.operation,
      userInfo,
      dryRun: this.dryRun,
      ...(this.options && { options: this.options }),
    };
  }

  /** The AdmissionRequest a webhook is sent: with the uid and the objects as `seenAs` serves them. */
  async reviewRequest(seenAs: { resource: GroupVersionResource; kind: GroupVersionKind } = this): Promise<Record<string, unknown>> {
    const { object, oldObject } = await this.objectsAs(seenAs.resource);
    const { dryRun, options, ...request } = this.admissionRequest(seenAs);
    // In the order of upstream's struct: uid first, the objects before dryRun and options.
    return { uid: this.uid, ...request, ...(object && { object }), ...(oldObject && { oldObject }), dryRun, ...(options !== undefined && { options }) };
  }
}
