// FieldSet: a set of field paths stored as a tree, as structured-merge-diff's fieldpath.Set. A node is
// a member when its own path is in the set; it has children when longer paths through it are.
import { compareElements, pathString, type FieldPath, type PathElement } from './path-element.js';

/**
 * A set of field paths. Build one with `insert`; after that treat it as immutable: the set
 * operations return new sets that may share untouched subtrees with their inputs.
 */
export class FieldSet {
  /** Whether the path leading to this node is itself in the set (meaningless at the root). */
  member = false;
  /** Longer paths, by their next element. */
  children: Map<PathElement, FieldSet> | undefined = undefined;

  static of(...paths: FieldPath[]): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** True when no path is in the set. */
  isEmpty(): boolean {
    return this.children === undefined || this.children.size === 0;
  }

  child(pe: PathElement): FieldSet | undefined {
    return this.children?.get(pe);
  }

  /** The child node for `pe`, created when missing. */
  descend(pe: PathElement): FieldSet {
    if (!this.children) this.children = new Map();
    let child = this.children.get(pe);
    if (!child) {
      child = new FieldSet();
      this.children.set(pe, child);
    }
    return child;
  }

  insert(path: FieldPath): void {
    // The empty path is the whole object; upstream does not track top-level ownership.
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (const pe of path) node = node.descend(pe);
    node.member = true;
  }

  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (const pe of path) {
      node = node.children?.get(pe);
      if (!node) return false;
    }
    return node.member;
  }

  union(other: FieldSet): FieldSet {
    return unionNodes(this, other);
  }

  /** Paths in this set and not in `other` (descendants of `other`'s paths are kept, as upstream's Difference). */
  difference(other: FieldSet): FieldSet {
    return differenceNode(this, other) ?? new FieldSet();
  }

  intersection(other: FieldSet): FieldSet {
    return intersectionNode(this, other) ?? new FieldSet();
  }

  /** Paths in this set that neither are in `other` nor lie below one of `other`'s paths. */
  recursiveDifference(other: FieldSet): FieldSet {
    return recursiveDifferenceNode(this, other) ?? new FieldSet();
  }

  equals(other: FieldSet): boolean {
    return equalNodes(this, other, true);
  }

  /** Every path, in upstream's iteration order (a node's members, then its children's paths). */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    collectPaths(this, [], out);
    return out;
  }

  /** Number of paths. */
  get size(): number {
    let count = 0;
    const visit = (node: FieldSet): void => {
      if (!node.children) return;
      for (const child of node.children.values()) {
        if (child.member) count++;
        visit(child);
      }
    };
    visit(this);
    return count;
  }

  toString(): string {
    return this.paths().map(pathString).join('\n');
  }
}

function unionNodes(a: FieldSet, b: FieldSet): FieldSet {
  if (!b.children || b.children.size === 0) {
    if (!b.member || a.member) return a;
  }
  if (!a.children || a.children.size === 0) {
    if (!a.member || b.member) return b;
  }
  const out = new FieldSet();
  out.member = a.member || b.member;
  out.children = new Map(a.children);
  if (b.children) {
    for (const [pe, child] of b.children) {
      const mine = out.children.get(pe);
      out.children.set(pe, mine ? unionNodes(mine, child) : child);
    }
  }
  return out;
}

function differenceNode(a: FieldSet, b: FieldSet): FieldSet | undefined {
  const member = a.member && !b.member;
  if (!a.children || !b.children) {
    if (member === a.member) return a;
    return a.children && a.children.size > 0 ? withChildren(member, a.children) : undefined;
  }
  let children: Map<PathElement, FieldSet> | undefined;
  let changed = member !== a.member;
  for (const [pe, child] of a.children) {
    const theirs = b.children.get(pe);
    const diff = theirs ? differenceNode(child, theirs) : child;
    if (diff !== child) changed = true;
    if (diff) (children ??= new Map()).set(pe, diff);
  }
  if (!changed) return a;
  if (!member && !children) return undefined;
  return withChildren(member, children);
}

function intersectionNode(a: FieldSet, b: FieldSet): FieldSet | undefined {
  const member = a.member && b.member;
  let children: Map<PathElement, FieldSet> | undefined;
  if (a.children && b.children) {
    const [small, large] = a.children.size <= b.children.size ? [a.children, b.children] : [b.children, a.children];
    for (const [pe, child] of small) {
      const other = large.get(pe);
      if (!other) continue;
      const both = small === a.children ? intersectionNode(child, other) : intersectionNode(other, child);
      if (both) (children ??= new Map()).set(pe, both);
    }
  }
  if (!member && !children) return undefined;
  return withChildren(member, children);
}

function recursiveDifferenceNode(a: FieldSet, b: FieldSet): FieldSet | undefined {
  if (!a.children || !b.children) return a.member || (a.children && a.children.size > 0) ? a : undefined;
  let children: Map<PathElement, FieldSet> | undefined;
  let changed = false;
  for (const [pe, child] of a.children) {
    const theirs = b.children.get(pe);
    let kept: FieldSet | undefined = child;
    if (theirs) kept = theirs.member ? undefined : recursiveDifferenceNode(child, theirs);
    if (kept !== child) changed = true;
    if (kept) (children ??= new Map()).set(pe, kept);
  }
  if (!changed) return a;
  if (!a.member && !children) return undefined;
  return withChildren(a.member, children);
}

function withChildren(member: boolean, children: Map<PathElement, FieldSet> | undefined): FieldSet {
  const out = new FieldSet();
  out.member = member;
  out.children = children;
  return out;
}

function equalNodes(a: FieldSet, b: FieldSet, root: boolean): boolean {
  if (a === b) return true;
  if (!root && a.member !== b.member) return false;
  const ac = a.children?.size ?? 0;
  const bc = b.children?.size ?? 0;
  if (ac !== bc) return false;
  if (ac === 0) return true;
  for (const [pe, child] of a.children!) {
    const other = b.children!.get(pe);
    if (!other || !equalNodes(child, other, false)) return false;
  }
  return true;
}

function collectPaths(node: FieldSet, prefix: PathElement[], out: FieldPath[]): void {
  if (!node.children) return;
  const keys = [...node.children.keys()].sort(compareElements);
  for (const pe of keys) if (node.children.get(pe)!.member) out.push([...prefix, pe]);
  for (const pe of keys) {
    const child = node.children.get(pe)!;
    if (child.children && child.children.size > 0) collectPaths(child, [...prefix, pe], out);
  }
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  return a.union(b);
}

export function difference(a: FieldSet, b: FieldSet): FieldSet {
  return a.difference(b);
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  return a.intersection(b);
}
