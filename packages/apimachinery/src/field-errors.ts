// Field validation errors: a path into an object and what is wrong there, reported together as one 422.
import { goQuote, goValue } from './go-format.js';

/** A path from the root of an object to one field, printed as `spec.rules[0].verbs` or `metadata.labels[app]`. */
export class FieldPath {
  private constructor(
    private readonly parent: FieldPath | null,
    /** A field name, or '' when this element is a subscript. */
    private readonly name: string,
    private readonly subscript: string,
  ) {}

  static root(name: string, ...more: string[]): FieldPath {
    return more.reduce((path, next) => path.child(next), new FieldPath(null, name, ''));
  }

  child(name: string, ...more: string[]): FieldPath {
    return [name, ...more].reduce<FieldPath>((path, next) => new FieldPath(path, next, ''), this);
  }

  index(i: number): FieldPath {
    return new FieldPath(this, '', String(i));
  }

  key(k: string): FieldPath {
    return new FieldPath(this, '', k);
  }

  toString(): string {
    const elements: FieldPath[] = [];
    for (let p: FieldPath | null = this; p; p = p.parent) elements.unshift(p);
    let out = '';
    for (const e of elements) {
      if (e.name) out += e.parent ? `.${e.name}` : e.name;
      else out += `[${e.subscript}]`;
    }
    return out;
  }
}

/** Shorthand for FieldPath.root, as upstream's field.NewPath. */
export const newPath = (name: string, ...more: string[]): FieldPath => FieldPath.root(name, ...more);

/** Upstream's field.ErrorType; it becomes the StatusCause's reason. */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  // A value of the wrong JSON type (upstream's TypeInvalid): worded as Invalid value, its own reason.
  FieldValueTypeInvalid: 'Invalid value',
};

/** A bad value printed as Go's %#v prints it (`[]string{"a"}`), where %q or JSON would not read the same. */
export class GoFormatted {
  constructor(readonly text: string) {}
}

// These types never print the offending value (it is absent, or too long to be worth echoing).
const valueOmitted = new Set<FieldErrorType>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong']);

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    /** The path as a string, e.g. `spec.rules[0].verbs`. */
    readonly field: string,
    readonly badValue: unknown,
    readonly detail: string,
  ) {}

  /** The message without the field: `Invalid value: "Foo": <detail>`. */
  body(): string {
    let s = typeText[this.type];
    if (!valueOmitted.has(this.type)) {
      const value = this.badValue;
      s += value instanceof GoFormatted ? `: ${value.text}` : typeof value === 'string' ? `: ${goQuote(value)}` : `: ${goValue(value)}`;
    }
    return this.detail ? `${s}: ${this.detail}` : s;
  }

  toString(): string {
    return `${this.field}: ${this.body()}`;
  }
}

export const required = (path: FieldPath, detail = ''): FieldError =>
  new FieldError('FieldValueRequired', path.toString(), '', detail);

export const invalid = (path: FieldPath, value: unknown, detail: string): FieldError =>
  new FieldError('FieldValueInvalid', path.toString(), value, detail);

export const notSupported = (path: FieldPath, value: unknown, validValues: readonly string[]): FieldError =>
  new FieldError(
    'FieldValueNotSupported',
    path.toString(),
    value,
    validValues.length ? `supported values: ${validValues.map(goQuote).join(', ')}` : '',
  );

export const forbidden = (path: FieldPath, detail: string): FieldError =>
  new FieldError('FieldValueForbidden', path.toString(), '', detail);

export const duplicate = (path: FieldPath, value: unknown): FieldError =>
  new FieldError('FieldValueDuplicate', path.toString(), value, '');

export const tooLong = (path: FieldPath, value: unknown, maxLength: number): FieldError =>
  new FieldError('FieldValueTooLong', path.toString(), value, `must have at most ${maxLength} bytes`);

/**
 * The errors as one message, as upstream's ErrorList.ToAggregate().Error(): duplicates dropped, one
 * error alone, several as `[a, b]`, none as ''.
 */
export function aggregateMessage(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map(String))];
  return messages.length === 1 ? messages[0]! : messages.length ? `[${messages.join(', ')}]` : '';
}
