// The REST endpoints: the catalog of served resources (resources/catalog.ts; the never-stored kinds
// too), one handler for them (resources/dispatch.ts) with one file per verb (resources/verbs/: list
// streaming, the watch writer, tables), body decoding and content negotiation, discovery, OpenAPI v2
// and v3 (openapi/), /version, and the objects written at start (resources/bootstrap.ts).
export { OpenAPI } from './openapi/handlers.js';
export { type BootstrapObject, Bootstrapper } from './resources/bootstrap.js';
export { ResourceCatalog, type ServedResource } from './resources/catalog.js';
export { Discovery, type ForeignSubresource } from './resources/discovery.js';
export { resourceHandler, virtualSubresourceKey } from './resources/dispatch.js';
export { DEFAULT_WATCH_BACKLOG_BYTES } from './resources/verbs/watch-backlog.js';
export { versionHandler, versionInfo, type VersionInfo } from './version.js';
