// The label selector lexer: identifiers, the `in`/`notin` keywords, and the symbols = == != ! ( ) , > <, split on whitespace.

export type TokenType = 'error' | 'end' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

export interface Token {
  type: TokenType;
  /** The text of the token; for an error token, the error. */
  literal: string;
}

const symbolTokens: Record<string, TokenType> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  '<': '<',
  '!=': '!=',
  '(': '(',
};

const END = '\0';
const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => '=!(),><'.includes(ch) && ch !== '';

/** Splits a selector into tokens, ending with one `end` token. A NUL character ends the input, as upstream's. */
export function lex(input: string): Token[] {
  let pos = 0;
  const read = (): string => (pos < input.length ? input[pos++]! : END);
  const unread = (): void => {
    pos--;
  };

  const identifierOrKeyword = (): Token => {
    let literal = '';
    for (;;) {
      const ch = read();
      if (ch === END) break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        unread();
        break;
      }
      literal += ch;
    }
    if (literal === 'in' || literal === 'notin') return { type: literal, literal };
    return { type: 'identifier', literal };
  };

  // The longest run of symbols that is still a token: `!=` and `==` are one token, `=(` is two.
  const symbol = (): Token => {
    let buffer = '';
    let last: Token | undefined;
    for (;;) {
      const ch = read();
      if (ch === END) break;
      if (!isSpecialSymbol(ch)) {
        unread();
        break;
      }
      buffer += ch;
      const type = symbolTokens[buffer];
      if (type) last = { type, literal: buffer };
      else if (last) {
        unread();
        break;
      }
    }
    return last ?? { type: 'error', literal: `error expected: keyword found '${buffer}'` };
  };

  const tokens: Token[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (ch === END) {
      tokens.push({ type: 'end', literal: '' });
      return tokens;
    }
    unread();
    tokens.push(isSpecialSymbol(ch) ? symbol() : identifierOrKeyword());
  }
}
