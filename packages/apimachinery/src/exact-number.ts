// Number literals that a JavaScript number cannot hold exactly (more than 15 significant digits, or
// beyond a double's range), carried through decoding as tagged strings until the schema says what
// the field is: a quantity keeps the literal as upstream's decoder does, an integer field refuses
// it, any other number is rounded as Go rounds a float64.

/**
 * Starts every tagged literal: NUL, then a random part drawn once per process, so that no client can
 * send a string that reads as a tagged number.
 */
const TAG = `\u0000number:${globalThis.crypto.randomUUID()}:`;

/** The literal as a tagged string. */
export function tagNumberLiteral(literal: string): string {
  return TAG + literal;
}

/** The literal a tagged string carries, else undefined. Cheap for ordinary strings: one char compare. */
export function taggedNumberLiteral(value: unknown): string | undefined {
  return typeof value === 'string' && value.charCodeAt(0) === 0 && value.startsWith(TAG) ? value.slice(TAG.length) : undefined;
}

const JSON_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** `digits` and a decimal exponent with no leading or trailing zeros: equal decimal values compare equal. */
function canonicalDecimal(text: string): string | undefined {
  const match = JSON_NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = (whole! + fraction).replace(/^0+/, '');
  if (!digits) return '0';
  const trimmed = digits.replace(/0+$/, '');
  const scale = Number(exponent) - fraction.length + (digits.length - trimmed.length);
  digits = trimmed;
  return `${sign}${digits}e${scale}`;
}

/**
 * Whether `literal` (a JSON number's text) names a value that JSON.parse would change: rounding
 * past 15 significant digits, overflow to Infinity, or underflow to zero. Up to 15 characters with
 * no exponent is always exact (a double holds 15 decimal digits), which is nearly every number a
 * request carries.
 */
export function isInexactNumberLiteral(literal: string): boolean {
  if (literal.length <= 15 && !/[eE]/.test(literal)) return false;
  const value = Number(literal);
  if (!Number.isFinite(value)) return true;
  const given = canonicalDecimal(literal);
  return given !== undefined && given !== canonicalDecimal(numberText(value));
}

/** String(value) in plain JSON number syntax ("1e+21" becomes "1e21"). */
function numberText(value: number): string {
  return String(value).replace('e+', 'e');
}
