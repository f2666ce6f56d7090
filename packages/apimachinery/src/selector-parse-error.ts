// The error a label or field selector that does not parse raises; its message is upstream's, for a 400 as is.

export class SelectorParseError extends Error {
  override readonly name = 'SelectorParseError';
}
