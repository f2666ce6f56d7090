// The message types, read from the .proto files this package ships (proto/, laid out by upstream's
// import paths) once, when the module loads.
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** The directory of the .proto files: `proto/` beside `dist/`. */
export const protoDirectory = fileURLToPath(new URL('../proto/', import.meta.url));

/**
 * Every .proto file there (a group's messages are its file's: a new group needs no line here). The
 * order does not matter: each file's imports are resolved from the directory as they are met.
 */
const files = readdirSync(protoDirectory, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.proto'))
  .map((file) => file.split(sep).join('/'))
  .sort();

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  // Imports name upstream paths ("k8s.io/apimachinery/..."): resolve them from the proto directory.
  root.resolvePath = (_origin, target) => join(protoDirectory, target);
  root.loadSync(files, { keepCase: true });
  root.resolveAll();
  return root;
}

export const root = loadRoot();

/** A message type by its full name, such as `k8s.io.api.rbac.v1.Role`. */
export function messageType(name: string): protobuf.Type {
  return root.lookupType(name);
}

/** The message type of that name, if the .proto files have one. */
export function findMessageType(name: string): protobuf.Type | undefined {
  const found = root.lookup(name);
  return found instanceof protobuf.Type ? found : undefined;
}

export const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
export const APIEXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
