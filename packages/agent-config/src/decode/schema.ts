// The shape of a configuration file: the field types that strict decoding checks and encoding follows.

/** A Go duration held as milliseconds (fractions keep nanoseconds). */
export type Duration = number;

/** Logging's flushFrequency: a duration written either as Go text (`5s`) or as integer nanoseconds. */
export interface TimeOrMetaDuration {
  durationMs: Duration;
  /** Whether the file wrote it as text; it is written back the same way. */
  serializeAsString: boolean;
}

export type IntType = 'int32' | 'int64' | 'uint32';

export interface StringSchema {
  readonly kind: 'string';
}
/** A resource quantity (`10Mi`, `1.5`), held as text; a number in the file is taken as its text. */
export interface QuantitySchema {
  readonly kind: 'quantity';
}
export interface BoolSchema {
  readonly kind: 'bool';
}
export interface IntSchema {
  readonly kind: 'int';
  readonly type: IntType;
}
export interface FloatSchema {
  readonly kind: 'float';
}
export interface DurationSchema {
  readonly kind: 'duration';
}
export interface TimeOrMetaDurationSchema {
  readonly kind: 'timeOrMetaDuration';
}
export interface ListSchema<T extends Schema = Schema> {
  readonly kind: 'list';
  readonly items: T;
}
export interface MapSchema<T extends Schema = Schema> {
  readonly kind: 'map';
  readonly values: T;
}
export type Fields = { readonly [name: string]: Schema };
export interface ObjectSchema<F extends Fields = Fields> {
  readonly kind: 'object';
  readonly fields: F;
}

export type Schema =
  | StringSchema
  | QuantitySchema
  | BoolSchema
  | IntSchema
  | FloatSchema
  | DurationSchema
  | TimeOrMetaDurationSchema
  | ListSchema
  | MapSchema
  | ObjectSchema;

/** The decoded value of a schema; every object field is optional, absent meaning "not set in the file". */
export type Infer<S> = S extends StringSchema | QuantitySchema
  ? string
  : S extends BoolSchema
    ? boolean
    : S extends IntSchema | FloatSchema | DurationSchema
      ? number
      : S extends TimeOrMetaDurationSchema
        ? TimeOrMetaDuration
        : S extends ListSchema<infer T>
          ? Infer<T>[]
          : S extends MapSchema<infer T>
            ? Record<string, Infer<T>>
            : S extends ObjectSchema<infer F>
              ? { [K in keyof F]?: Infer<F[K]> }
              : never;

/** Schema constructors, named after the Go types of the upstream structs. */
export const t = {
  string: (): StringSchema => ({ kind: 'string' }),
  quantity: (): QuantitySchema => ({ kind: 'quantity' }),
  bool: (): BoolSchema => ({ kind: 'bool' }),
  int32: (): IntSchema => ({ kind: 'int', type: 'int32' }),
  int64: (): IntSchema => ({ kind: 'int', type: 'int64' }),
  uint32: (): IntSchema => ({ kind: 'int', type: 'uint32' }),
  float64: (): FloatSchema => ({ kind: 'float' }),
  duration: (): DurationSchema => ({ kind: 'duration' }),
  timeOrMetaDuration: (): TimeOrMetaDurationSchema => ({ kind: 'timeOrMetaDuration' }),
  list: <T extends Schema>(items: T): ListSchema<T> => ({ kind: 'list', items }),
  map: <T extends Schema>(values: T): MapSchema<T> => ({ kind: 'map', values }),
  object: <F extends Fields>(fields: F): ObjectSchema<F> => ({ kind: 'object', fields }),
};
