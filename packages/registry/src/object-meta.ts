// System metadata the store owns: uid, timestamps, generation (for kinds that track it), generated names.
import { randomInt, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, ObjectMeta } from './definition.js';

let lastSecond = NaN;
let lastTimestamp = '';

/** Kubernetes' timestamps: RFC 3339 in UTC, whole seconds. Every write stamps one; within a second they are all the same. */
export function formatTimestamp(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== lastSecond) {
    lastTimestamp = `${date.toISOString().slice(0, 19)}Z`;
    lastSecond = second;
  }
  return lastTimestamp;
}

// Upstream leaves out vowels and look-alike characters so that generated names spell no words.
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const SUFFIX_LENGTH = 5;
/** Upstream's limit on how much of a generateName prefix is kept. */
const MAX_PREFIX_LENGTH = 63 - SUFFIX_LENGTH;

export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return prefix.slice(0, MAX_PREFIX_LENGTH) + suffix;
}

/**
 * Sets the fields a new object gets from the server, dropping any a client sent. The generation is
 * the client's (validated as non-negative) unless the kind tracks it, as upstream's strategies do.
 */
export function fillCreateMeta(meta: ObjectMeta, now: Date, tracksGeneration: boolean): void {
  meta.uid = randomUUID();
  meta.creationTimestamp = formatTimestamp(now);
  if (tracksGeneration) meta.generation = 1;
  dropEmptyCollections(meta);
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete (meta as Record<string, unknown>).selfLink;
}

/**
 * ObjectMeta's maps and lists are omitempty upstream: an empty one (the last label removed by a
 * patch, `finalizers: []`) is no field at all, in storage, responses and field ownership.
 */
function dropEmptyCollections(meta: ObjectMeta): void {
  for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
    const value = meta[field];
    if (value !== undefined && (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0)) delete meta[field];
  }
}

/** Whether anything but metadata and status differs: for a kind that tracks it, a new generation. */
function specChanged(object: KubeObject, old: KubeObject): boolean {
  const { metadata: _metadata, status: _status, ...spec } = object;
  const { metadata: _oldMetadata, status: _oldStatus, ...oldSpec } = old;
  return !isDeepStrictEqual(spec, oldSpec);
}

/**
 * Carries the server-owned fields of `old` into an update. A kind that tracks its generation keeps
 * the old one and adds one on a spec change; for the others it is the client's, which validation
 * keeps from going down.
 */
export function fillUpdateMeta(object: KubeObject, old: KubeObject, tracksGeneration: boolean): void {
  const meta = object.metadata;
  const oldMeta = old.metadata;
  if (!meta.uid) meta.uid = oldMeta.uid!;
  meta.creationTimestamp = oldMeta.creationTimestamp!;
  setOrDelete(meta, 'deletionTimestamp', oldMeta.deletionTimestamp);
  setOrDelete(meta, 'deletionGracePeriodSeconds', oldMeta.deletionGracePeriodSeconds);
  delete (meta as Record<string, unknown>).selfLink;
  dropEmptyCollections(meta);
  if (tracksGeneration) {
    const generation = oldMeta.generation ?? 1;
    meta.generation = specChanged(object, old) ? generation + 1 : generation;
  }
}

function setOrDelete<K extends keyof ObjectMeta>(meta: ObjectMeta, field: K, value: ObjectMeta[K]): void {
  if (value === undefined) delete meta[field];
  else meta[field] = value;
}
