// Decoding one kind of this group: apiVersion and kind checked first, then the body strictly against its schema.
import { invalid, newPath, notSupported, required } from '@plat/apimachinery';
import { API_VERSION } from '../group.js';
import type { ObjectSchema } from './schema.js';
import { decodeDocument, parseText } from './strict-decode.js';
import { DecodeError, DuplicateField, SyntaxProblem, UnknownField, type DecodeProblem } from './problems.js';

/**
 * Decodes YAML or JSON text as `kind` of agent.config.plat.io/v1beta1. Throws DecodeError listing every
 * problem; a wrong apiVersion or kind is reported alone, since the body is then not worth checking.
 * The value is of the schema's type.
 */
export function decodeKind(text: string, kind: string, schema: ObjectSchema): Record<string, unknown> {
  const { value, problems } = decodeChecked(text, kind, schema);
  if (problems.length) throw new DecodeError(kind, problems);
  return value;
}

/** What lenient decoding made of a file: the value, and its problems sorted by weight. */
export interface LenientDecoding {
  value: Record<string, unknown>;
  /** Unknown and duplicate fields: strict decoding's problems, warnings here (the last duplicate wins). */
  warnings: (UnknownField | DuplicateField)[];
  /** Values of the wrong type or out of range: left unset in `value`, still errors. */
  errors: DecodeProblem[];
}

/**
 * Decodes as upstream's agent decodes its v1beta1 configuration: strictly first, and when the only
 * problems are unknown or duplicate fields, leniently, those problems becoming warnings. Here the
 * rest of the file is decoded in any case, its type errors returned beside the warnings, so that one
 * run reports every problem of a file. Throws DecodeError for what leaves nothing to decode: YAML
 * syntax, a wrong apiVersion or kind.
 */
export function decodeKindLeniently(text: string, kind: string, schema: ObjectSchema): LenientDecoding {
  const { value, problems } = decodeChecked(text, kind, schema);
  const fatal = problems.filter((p) => p instanceof SyntaxProblem);
  if (fatal.length) throw new DecodeError(kind, fatal);
  const isStrictOnly = (p: DecodeProblem): p is UnknownField | DuplicateField => p instanceof UnknownField || p instanceof DuplicateField;
  return { value, warnings: problems.filter(isStrictOnly), errors: problems.filter((p) => !isStrictOnly(p)) };
}

function decodeChecked(text: string, kind: string, schema: ObjectSchema): { value: Record<string, unknown>; problems: DecodeProblem[] } {
  const parsed = parseText(text);
  if (parsed instanceof SyntaxProblem) throw new DecodeError(kind, [parsed]);
  const typeProblems: DecodeProblem[] = [];
  const apiVersion = parsed.topLevel.get('apiVersion');
  const foundKind = parsed.topLevel.get('kind');
  if (apiVersion === undefined || apiVersion === null || apiVersion === '') typeProblems.push(required(newPath('apiVersion'), `must be ${API_VERSION}`));
  else if (apiVersion !== API_VERSION) typeProblems.push(notSupported(newPath('apiVersion'), apiVersion, [API_VERSION]));
  if (foundKind === undefined || foundKind === null || foundKind === '') typeProblems.push(required(newPath('kind'), `must be ${kind}`));
  else if (foundKind !== kind) typeProblems.push(invalid(newPath('kind'), foundKind, `expected ${kind}`));
  if (typeProblems.length) throw new DecodeError(kind, typeProblems);
  return decodeDocument(parsed, schema);
}
