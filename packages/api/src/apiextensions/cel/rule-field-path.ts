// A rule's fieldPath (upstream's ValidFieldPath): a JSONPath of fields (`.spec.x`) and map keys
// (`['a.b']`) that the rule's schema has, turned into the field path its errors are reported at.
import { additionalPropertiesOf, type SchemaNode } from '@plat/cel';

const escapes: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

function unescapeQuoted(s: string): string {
  return s.replace(/\\(.)/g, (match, c: string) => {
    const plain = escapes[c];
    if (plain === undefined) throw new Error(`invalid string literal: invalid escape char ${match}`);
    return plain;
  });
}

/** The path's tokens: '.', '[', ']' alone, single-quoted strings whole, other runs of text. */
function tokens(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === '.' || c === '[' || c === ']') {
      out.push(c);
      i++;
    } else if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      out.push(path.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < path.length && !'.[]'.includes(path[j]!)) j++;
      out.push(path.slice(i, j));
      i = j;
    }
  }
  return out;
}

/**
 * The field path `jsonPath` names under `schema`, as upstream prints it (`spec.x`, `[key].y`), or an
 * Error saying why it names nothing there. Errors of the rule are reported at the rule's path plus
 * this text as one more field, as upstream joins them.
 */
export function validFieldPath(jsonPath: string, schema: SchemaNode): string {
  const parts: { name: string; named: boolean }[] = [];
  let node: SchemaNode | undefined = schema;
  const step = (name: string): void => {
    if (node?.properties) {
      parts.push({ name, named: true });
      node = node.properties[name];
      if (!node) throw new Error('does not refer to a valid field');
    } else if (node && additionalPropertiesOf(node)) {
      parts.push({ name, named: false });
      node = additionalPropertiesOf(node);
    } else throw new Error('does not refer to a valid field');
  };
  const list = tokens(jsonPath);
  for (let i = 0; i < list.length; i++) {
    const token = list[i]!;
    if (token === '[') {
      const quoted = list[++i];
      if (quoted === undefined) throw new Error('unexpected end of JSON path');
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) throw new Error(`expected single quoted string but got ${quoted}`);
      step(unescapeQuoted(quoted.slice(1, -1)));
      const close = list[++i];
      if (close === undefined) throw new Error('unexpected end of JSON path');
      if (close !== ']') throw new Error(`expected ] but got ${close}`);
    } else if (token === '.') {
      const name = list[++i];
      if (name === undefined) throw new Error('unexpected end of JSON path');
      step(name);
    } else throw new Error(`expected [ or . but got: ${token}`);
  }
  return parts.reduce((out, p) => (p.named ? (out ? `${out}.${p.name}` : p.name) : `${out}[${p.name}]`), '');
}
