// What strict decoding reports: unknown and duplicate fields, wrong types and YAML syntax, each with its path.
import type { FieldError } from '@plat/apimachinery';

/** One decoding problem; `field` is its path (`authentication.webhook.cacheTTL`), '' for the document itself. */
export type DecodeProblem = FieldError | UnknownField | DuplicateField | SyntaxProblem;

/** A field the schema does not have, as upstream's strict decoding reports it. */
export class UnknownField {
  constructor(readonly field: string) {}
  toString(): string {
    return `unknown field "${this.field}"`;
  }
}

/** A key written twice in one mapping. */
export class DuplicateField {
  constructor(readonly field: string) {}
  toString(): string {
    return `duplicate field "${this.field}"`;
  }
}

/** Text that is not YAML (or JSON), or a document that is not a mapping. */
export class SyntaxProblem {
  readonly field = '';
  constructor(readonly message: string) {}
  toString(): string {
    return this.message;
  }
}

/** Thrown when a file cannot be decoded; it carries every problem found, not just the first. */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
  constructor(
    /** What was being decoded, e.g. `NodeAgentConfiguration`. */
    readonly what: string,
    readonly problems: readonly DecodeProblem[],
  ) {
    super(`failed to decode ${what}: ${problems.map(String).join(', ')}`);
  }
}
