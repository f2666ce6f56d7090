// Go's formatting of the values upstream's RBAC messages contain, so that ours read the same.
import { goQuote } from '@plat/apimachinery';

/** Go's %q of a []string: `["a" "b"]`. */
export const goQuoteList = (values: readonly string[] | null | undefined): string => `[${(values ?? []).map(goQuote).join(' ')}]`;

/**
 * The message of upstream's utilerrors.NewAggregate: one error as itself; several, de-duplicated
 * and in order, as `[a, b]`. Empty when there are none.
 */
export function aggregateMessage(messages: readonly string[]): string {
  if (messages.length <= 1) return messages[0] ?? '';
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}
