// The kind of a webhook's answer, checked against the review sent, as a typed Go decoder does.
/**
 * A webhook's answer as the kind asked for: a missing kind or apiVersion is taken to be the one
 * sent (as a typed Go decoder defaults them); another kind, or another group, is refused.
 */
export function checkAnswerKind(answer: Record<string, unknown>, kind: string, group: string, versions: readonly string[]): void {
  if (answer.kind !== undefined && answer.kind !== kind) throw new Error(`the webhook answered a ${String(answer.kind)}, not a ${kind}`);
  if (answer.apiVersion === undefined) return;
  const accepted = versions.map((version) => `${group}/${version}`);
  if (!accepted.includes(String(answer.apiVersion))) {
    throw new Error(`the webhook answered a ${kind} of apiVersion ${JSON.stringify(answer.apiVersion)}, not ${accepted.join(' or ')}`);
  }
}
