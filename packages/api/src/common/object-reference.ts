// core v1 ObjectReference: what ServiceAccount secrets and Events point at.
import type { JSONSchema } from '@plat/registry';
import { objectSchema, stringField } from './schema.js';

export interface ObjectReference {
  apiVersion?: string;
  fieldPath?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
}

export const objectReferenceSchema: JSONSchema = objectSchema(
  'A reference to another object, with enough information to inspect or modify it.',
  {
    apiVersion: stringField('API version of the referent.'),
    fieldPath: stringField('A piece of the object rather than the whole, such as spec.containers{name}.'),
    kind: stringField('Kind of the referent.'),
    name: stringField('Name of the referent.'),
    namespace: stringField('Namespace of the referent.'),
    resourceVersion: stringField('The version of the referent this reference was made to.'),
    uid: stringField('UID of the referent.'),
  },
  { mapType: 'atomic' },
);
