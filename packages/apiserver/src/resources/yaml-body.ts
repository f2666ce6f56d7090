// YAML request bodies: parsed with the yaml library, duplicate keys found by walking its document
// (with their paths, as for JSON) rather than failing the parse.
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';

export function parseYaml(text: string): { value: unknown; duplicates: string[]; error?: string } {
  const document = parseDocument(text, { uniqueKeys: false });
  if (document.errors.length) return { value: undefined, duplicates: [], error: document.errors[0]!.message };
  const duplicates: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const child = path ? `${path}.${key}` : key;
        if (seen.has(key)) duplicates.push(child);
        seen.add(key);
        walk(pair.value, child);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => walk(item as Node, `${path}[${index}]`));
    }
  };
  walk(document.contents, '');
  return { value: document.toJS(), duplicates };
}
