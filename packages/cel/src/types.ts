// The static types of the expression language: what the checker assigns to every expression, with
// type parameters for the generic functions (size, indexing, equality...) and their unification.

export type PrimitiveKind = 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null_type' | 'timestamp' | 'duration' | 'dyn' | 'error';

export type CelType =
  | { readonly kind: PrimitiveKind }
  | { readonly kind: 'list'; readonly elem: CelType }
  | { readonly kind: 'map'; readonly key: CelType; readonly value: CelType }
  /** An object of a schema with properties: its fields by their escaped names. */
  | { readonly kind: 'object'; readonly name: string; readonly fields: ReadonlyMap<string, CelType> }
  /** The type of a type value (`int`, `type(x)`). */
  | { readonly kind: 'type'; readonly of: CelType | undefined }
  /** A library's own type (kubernetes.URL, kubernetes.authorization.Authorizer...). */
  | { readonly kind: 'opaque'; readonly name: string }
  | { readonly kind: 'param'; readonly name: string };

const primitive = (kind: PrimitiveKind): CelType => ({ kind });
export const IntType = primitive('int');
export const UintType = primitive('uint');
export const DoubleType = primitive('double');
export const BoolType = primitive('bool');
export const StringType = primitive('string');
export const BytesType = primitive('bytes');
export const NullType = primitive('null_type');
export const TimestampType = primitive('timestamp');
export const DurationType = primitive('duration');
export const DynType = primitive('dyn');
export const ErrorType = primitive('error');

export const listOf = (elem: CelType): CelType => ({ kind: 'list', elem });
export const mapOf = (key: CelType, value: CelType): CelType => ({ kind: 'map', key, value });
export const typeOf = (of: CelType | undefined): CelType => ({ kind: 'type', of });
export const opaque = (name: string): CelType => ({ kind: 'opaque', name });
export const param = (name: string): CelType => ({ kind: 'param', name });
export const objectType = (name: string, fields: ReadonlyMap<string, CelType>): CelType => ({ kind: 'object', name, fields });

/** cel-go's names: how types read in error messages. */
export function formatType(t: CelType): string {
  switch (t.kind) {
    case 'list':
      return `list(${formatType(t.elem)})`;
    case 'map':
      return `map(${formatType(t.key)}, ${formatType(t.value)})`;
    case 'object':
    case 'opaque':
    case 'param':
      return t.name;
    case 'type':
      return t.of ? `type(${formatType(t.of)})` : 'type';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'null_type':
      return 'null';
    default:
      return t.kind;
  }
}

/** Type parameters bound so far while checking one expression. */
export class Substitution {
  private readonly bindings = new Map<string, CelType>();
  /** The names bound, in order, so that a failed attempt can be undone (see mark). */
  private readonly trail: string[] = [];

  resolve(t: CelType): CelType {
    while (t.kind === 'param') {
      const bound = this.bindings.get(t.name);
      if (!bound) return t;
      t = bound;
    }
    return t;
  }

  /** `t` with every bound parameter replaced, deeply; free ones left as they are. */
  apply(t: CelType): CelType {
    t = this.resolve(t);
    switch (t.kind) {
      case 'list':
        return listOf(this.apply(t.elem));
      case 'map':
        return mapOf(this.apply(t.key), this.apply(t.value));
      case 'type':
        return t.of ? typeOf(this.apply(t.of)) : t;
      default:
        return t;
    }
  }

  /** Binds a free parameter (isAssignable binds only free ones). */
  bind(name: string, t: CelType): void {
    this.bindings.set(name, t);
    this.trail.push(name);
  }

  /**
   * A point to come back to: trying an overload binds in place and undoes what it bound when it
   * does not fit. (A copy per attempt would cost the whole expression's bindings each time, and
   * make checking quadratic in the expression's size.)
   */
  mark(): number {
    return this.trail.length;
  }

  /** Undoes every binding made since `mark`. */
  rollback(mark: number): void {
    while (this.trail.length > mark) this.bindings.delete(this.trail.pop()!);
  }
}

function occurs(name: string, t: CelType, s: Substitution): boolean {
  t = s.resolve(t);
  switch (t.kind) {
    case 'param':
      return t.name === name;
    case 'list':
      return occurs(name, t.elem, s);
    case 'map':
      return occurs(name, t.key, s) || occurs(name, t.value, s);
    case 'type':
      return t.of ? occurs(name, t.of, s) : false;
    default:
      return false;
  }
}

/**
 * Whether a value of type `actual` may stand where `target` is expected, binding free parameters
 * of either side in `s` (cel-go's isAssignable: dyn goes both ways, null fits objects).
 */
export function isAssignable(target: CelType, actual: CelType, s: Substitution): boolean {
  target = s.resolve(target);
  actual = s.resolve(actual);
  if (target.kind === 'param') {
    if (actual.kind === 'param' && actual.name === target.name) return true;
    if (occurs(target.name, actual, s)) return false;
    s.bind(target.name, actual);
    return true;
  }
  if (actual.kind === 'param') {
    if (occurs(actual.name, target, s)) return false;
    s.bind(actual.name, target);
    return true;
  }
  if (target.kind === 'dyn' || actual.kind === 'dyn' || target.kind === 'error' || actual.kind === 'error') return true;
  if (actual.kind === 'null_type') return target.kind === 'null_type' || target.kind === 'object' || target.kind === 'opaque';
  if (target.kind === 'null_type') return actual.kind === 'object' || actual.kind === 'opaque';
  switch (target.kind) {
    case 'list':
      return actual.kind === 'list' && isAssignable(target.elem, actual.elem, s);
    case 'map':
      return actual.kind === 'map' && isAssignable(target.key, actual.key, s) && isAssignable(target.value, actual.value, s);
    case 'object':
    case 'opaque':
      return actual.kind === target.kind && actual.name === target.name;
    case 'type':
      return actual.kind === 'type';
    default:
      return actual.kind === target.kind;
  }
}

/** Whether two resolved types are the same type (for merging the results of several overloads). */
export function sameType(a: CelType, b: CelType): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'list':
      return sameType(a.elem, (b as typeof a).elem);
    case 'map':
      return sameType(a.key, (b as typeof a).key) && sameType(a.value, (b as typeof a).value);
    case 'object':
    case 'opaque':
    case 'param':
      return a.name === (b as typeof a).name;
    case 'type':
      return true;
    default:
      return true;
  }
}

/** Free parameters become dyn: what a finished expression's types say of what it never fixed. */
export function finalize(t: CelType, s: Substitution): CelType {
  t = s.apply(t);
  switch (t.kind) {
    case 'param':
      return DynType;
    case 'list':
      return listOf(finalize(t.elem, s));
    case 'map':
      return mapOf(finalize(t.key, s), finalize(t.value, s));
    case 'type':
      return t.of ? typeOf(finalize(t.of, s)) : t;
    default:
      return t;
  }
}
