// A schema's `pattern`, compiled once. Upstream compiles it with Go's regexp (RE2); we compile it as
// an ECMAScript regular expression with the `u` flag, unanchored as RE2's MatchString is. The two
// dialects agree on the patterns CRDs commonly use (classes, anchors, groups, quantifiers, \d \w \b),
// and differ where:
// - RE2 has syntax ECMAScript lacks: inline flags `(?i)`, `\A` and `\z`, POSIX classes `[[:alpha:]]`,
//   `\pL` without braces, `(?P<name>...)`, `\Q...\E`: such a pattern does not compile here and every
//   value is refused with "but pattern is invalid" (the CRD validator decides whether to accept it);
// - ECMAScript has what RE2 refuses (lookaround, backreferences): upstream refuses the CRD;
// - `\s` is Unicode whitespace here, ASCII in RE2; `$` is the end of input in both (no `m` flag);
// - RE2 runs in linear time; ECMAScript backtracks, so a pathological pattern is slow on long input.
const compiled = new Map<string, RegExp | string>();

/** The compiled pattern, or why it does not compile. */
export function compilePattern(pattern: string): RegExp | string {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    try {
      entry = new RegExp(pattern, 'u');
    } catch (error) {
      entry = (error as Error).message;
    }
    compiled.set(pattern, entry);
  }
  return entry;
}
