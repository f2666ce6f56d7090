// Field paths that may start at the object itself, as upstream's walks start from a nil field.Path:
// a property of the root is `spec`, an entry of a root map `[key]`, an item of a root list `[0]`.
import { newPath, type FieldPath } from '@plat/apimachinery';

export type OptionalPath = FieldPath | undefined;

export const childOf = (path: OptionalPath, name: string): FieldPath => (path ? path.child(name) : newPath(name));

export const keyOf = (path: OptionalPath, key: string): FieldPath => (path ? path.key(key) : newPath(`[${key}]`));

export const indexOf = (path: OptionalPath, index: number): FieldPath => (path ? path.index(index) : newPath(`[${index}]`));

