// Go's %#v of a []string (`[]string{"a", "b"}`, or `[]string(nil)`), which some upstream messages embed.
import { goQuote } from './go-format.js';

export const goStringSlice = (values: readonly string[] | null): string =>
  values === null ? '[]string(nil)' : `[]string{${values.map(goQuote).join(', ')}}`;
