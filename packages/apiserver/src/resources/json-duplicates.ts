// Duplicate keys in a JSON text, with their paths. JSON.parse keeps the last of duplicate keys
// silently, so fieldValidation needs this one pass over the raw text (LIBRARIES.md measured it as
// the cheapest way). The text must already be valid JSON.

/** Paths like `metadata.name` or `spec.rules[0].verbs` of keys that appear twice in one object. */
export function findDuplicateKeys(text: string): string[] {
  const duplicates: string[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    let simple = true;
    while (text[i] !== '"') {
      if (text[i] === '\\') {
        simple = false;
        i++;
      }
      i++;
    }
    i++;
    return simple ? text.slice(start + 1, i - 1) : (JSON.parse(text.slice(start, i)) as string);
  };
  const value = (path: string): void => {
    skipSpace();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      skipSpace();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skipSpace();
        const key = readString();
        const child = path ? `${path}.${key}` : key;
        if (seen.has(key)) duplicates.push(child);
        seen.add(key);
        skipSpace();
        i++; // colon
        value(child);
        skipSpace();
        if (text[i++] === '}') return;
      }
    } else if (c === '[') {
      i++;
      skipSpace();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        value(`${path}[${index}]`);
        skipSpace();
        if (text[i++] === ']') return;
      }
    } else if (c === '"') {
      readString();
    } else {
      while (i < text.length && !',}] \n\r\t'.includes(text[i]!)) i++;
    }
  };
  value('');
  return duplicates;
}
