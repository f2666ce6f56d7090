// Which of a CustomResourceDefinition's requested names it may have (upstream's naming condition
// controller): a name another definition of the same group has accepted is refused, unless this
// definition accepted it first. The NamesAccepted condition says which name conflicts, and
// Established starts as "Installing" once the names are accepted.
import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames } from './types.js';
import { findCondition } from './conditions.js';

type Condition = Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;

export interface NamesDecision {
  acceptedNames: CustomResourceDefinitionNames;
  namesAccepted: Condition;
  established: Condition;
}

/** The resource names (plural, singular, short names) and kinds the other definitions of `crd`'s group have accepted. */
function namesInUse(crd: CustomResourceDefinition, all: Iterable<CustomResourceDefinition>): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const other of all) {
    if (other.metadata.name === crd.metadata.name || other.spec.group !== crd.spec.group) continue;
    const accepted = other.status?.acceptedNames;
    if (!accepted) continue;
    resources.add(accepted.plural ?? '');
    resources.add(accepted.singular ?? '');
    for (const short of accepted.shortNames ?? []) resources.add(short);
    kinds.add(accepted.kind ?? '');
    kinds.add(accepted.listKind ?? '');
  }
  return { resources, kinds };
}

/** Why `requested` cannot be had ('' when it can): it is what was accepted, or no one else's. */
function conflict(requested: string, accepted: string, inUse: ReadonlySet<string>): string {
  if (requested === accepted || !inUse.has(requested)) return '';
  return `"${requested}" is already in use`;
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((x, i) => x === b![i]);

export function sameNames(a: CustomResourceDefinitionNames | undefined, b: CustomResourceDefinitionNames | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.plural === b.plural &&
    (a.singular ?? '') === (b.singular ?? '') &&
    sameList(a.shortNames, b.shortNames) &&
    a.kind === b.kind &&
    (a.listKind ?? '') === (b.listKind ?? '') &&
    sameList(a.categories, b.categories)
  );
}

/**
 * The names `crd` may have given the definitions `all` (this one among them or not), and the
 * NamesAccepted and Established conditions to go with them. Each name that conflicts keeps what
 * was accepted before; the condition names the last conflict found, as upstream's.
 */
export function decideNames(crd: CustomResourceDefinition, all: Iterable<CustomResourceDefinition>): NamesDecision {
  const { resources, kinds } = namesInUse(crd, all);
  const requested = crd.spec.names;
  const accepted: CustomResourceDefinitionNames = crd.status?.acceptedNames ?? { plural: '', kind: '' };
  const names: CustomResourceDefinitionNames = { ...accepted };
  let refused: { reason: string; message: string } | undefined;

  const check = (reason: string, message: string): boolean => {
    if (!message) return true;
    refused = { reason, message };
    return false;
  };
  if (check('PluralConflict', conflict(requested.plural, accepted.plural, resources))) names.plural = requested.plural;
  if (check('SingularConflict', conflict(requested.singular ?? '', accepted.singular ?? '', resources))) {
    if (requested.singular) names.singular = requested.singular;
    else delete names.singular;
  }
  if (!sameList(requested.shortNames, accepted.shortNames)) {
    const mine = new Set(accepted.shortNames ?? []);
    const problems = (requested.shortNames ?? []).filter((s) => !mine.has(s)).map((s) => conflict(s, '', resources)).filter(Boolean);
    // Several conflicts read as upstream's aggregate error: one, or "[a, b]".
    const message = problems.length > 1 ? `[${problems.join(', ')}]` : (problems[0] ?? '');
    if (check('ShortNamesConflict', message)) {
      if (requested.shortNames?.length) names.shortNames = [...requested.shortNames];
      else delete names.shortNames;
    }
  }
  if (check('KindConflict', conflict(requested.kind, accepted.kind, kinds))) names.kind = requested.kind;
  if (check('ListKindConflict', conflict(requested.listKind ?? '', accepted.listKind ?? '', kinds))) {
    if (requested.listKind) names.listKind = requested.listKind;
    else delete names.listKind;
  }
  if (requested.categories?.length) names.categories = [...requested.categories];
  else delete names.categories;

  const namesAccepted: Condition = refused
    ? { type: 'NamesAccepted', status: 'False', ...refused }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  const previous = findCondition(crd, 'Established');
  let established: Condition = previous
    ? { type: 'Established', status: previous.status, ...(previous.reason !== undefined && { reason: previous.reason }), ...(previous.message !== undefined && { message: previous.message }) }
    : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { acceptedNames: names, namesAccepted, established };
}
