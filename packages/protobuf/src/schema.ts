// The message types, read from the .proto files this package ships (proto/, laid out by upstream's
// import paths) once, when the module loads.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** The directory of the .proto files: `proto/` beside `dist/`. */
export const protoDirectory = fileURLToPath(new URL('../proto/', import.meta.url));

const files = [
  'k8s.io/apimachinery/pkg/runtime/generated.proto',
  'k8s.io/apimachinery/pkg/api/resource/generated.proto',
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/rbac/v1/generated.proto',
  'k8s.io/api/networking/v1alpha1/generated.proto',
  'k8s.io/api/coordination/v1/generated.proto',
  'k8s.io/api/events/v1/generated.proto',
  'k8s.io/api/authorization/v1/generated.proto',
  'k8s.io/api/authentication/v1/generated.proto',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated.proto',
  'k8s.io/api/autoscaling/v1/generated.proto',
  'k8s.io/api/admissionregistration/v1/generated.proto',
  'k8s.io/api/admissionregistration/v1beta1/generated.proto',
  'k8s.io/api/admissionregistration/v1alpha1/generated.proto',
];

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
