// Property names as expressions see them (k8s.io/apiserver pkg/cel/escaping.go): a name that is a
// CEL keyword becomes `__{keyword}__`; `__`, `.`, `-` and `/` become `__underscores__`, `__dot__`,
// `__dash__` and `__slash__`; any other character outside [a-zA-Z0-9_] makes the name inaccessible.

const reserved = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

const replacements: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/** The name a property has in expressions, or undefined when it cannot have one. */
export function escapeName(name: string): string | undefined {
  if (name === '' || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (reserved.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  return name.replace(/__|[.\-/]/g, (m) => replacements[m]!);
}

const unescapes: Record<string, string> = { underscores: '__', dot: '.', dash: '-', slash: '/' };

/** The property name an escaped name stands for, or undefined when it is no valid escaping. */
export function unescapeName(escaped: string): string | undefined {
  let ok = true;
  const result = escaped.replace(/__[^_]+__/g, (m) => {
    const contents = m.slice(2, -2);
    const plain = unescapes[contents];
    if (plain !== undefined) return plain;
    if (reserved.has(contents)) {
      if (m.length !== escaped.length) ok = false;
      return contents;
    }
    ok = false;
    return '';
  });
  return ok ? result : undefined;
}
