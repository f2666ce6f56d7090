// System metadata the store owns: uid, timestamps, generation, generated names.
import { randomInt, randomUUID } from 'node:crypto';
import type { KubeObject, ObjectMeta } from './definition.js';

/** Kubernetes' timestamps: RFC 3339 in UTC, whole seconds. */
export const formatTimestamp = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;

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

/** Sets the fields a new object gets from the server, dropping any a client sent. */
export function fillCreateMeta(meta: ObjectMeta, now: Date): void {
  meta.uid = randomUUID();
  meta.creationTimestamp = formatTimestamp(now);
  meta.generation = 1;
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete (meta as Record<string, unknown>).selfLink;
}

/** Everything but metadata and status: a change here is a new generation. */
function specOf(object: KubeObject): string {
  const { metadata: _metadata, status: _status, ...rest } = object;
  return JSON.stringify(rest);
}

/** Carries the server-owned fields of `old` into an update; bumps generation on a spec change. */
export function fillUpdateMeta(object: KubeObject, old: KubeObject): void {
  const meta = object.metadata;
  const oldMeta = old.metadata;
  if (!meta.uid) meta.uid = oldMeta.uid!;
  meta.creationTimestamp = oldMeta.creationTimestamp!;
  setOrDelete(meta, 'deletionTimestamp', oldMeta.deletionTimestamp);
  setOrDelete(meta, 'deletionGracePeriodSeconds', oldMeta.deletionGracePeriodSeconds);
  delete (meta as Record<string, unknown>).selfLink;
  const generation = oldMeta.generation ?? 1;
  meta.generation = specOf(object) === specOf(old) ? generation : generation + 1;
}

function setOrDelete<K extends keyof ObjectMeta>(meta: ObjectMeta, field: K, value: ObjectMeta[K]): void {
  if (value === undefined) delete meta[field];
  else meta[field] = value;
}
