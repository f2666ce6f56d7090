// Decoding one kind of this group: apiVersion and kind checked first, then the body strictly against its schema.
import { invalid, newPath, notSupported, required } from '@plat/apimachinery';
import { API_VERSION } from '../group.js';
import type { ObjectSchema } from './schema.js';
import { decodeDocument, parseText } from './strict-decode.js';
import { DecodeError, SyntaxProblem, type DecodeProblem } from './problems.js';

/**
 * Decodes YAML or JSON text as `kind` of agent.config.plat.io/v1beta1. Throws DecodeError listing every
 * problem; a wrong apiVersion or kind is reported alone, since the body is then not worth checking.
 * The value is of the schema's type.
 */
export function decodeKind(text: string, kind: string, schema: ObjectSchema): Record<string, unknown> {
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

  const { value, problems } = decodeDocument(parsed, schema);
  if (problems.length) throw new DecodeError(kind, problems);
  return value;
}
