// The bytes of a run of watch events, encoded and joined once for all the watchers that write it.
import type { ApiWatchEvent } from '@plat/registry';

/** A run as written: its bytes, and the size of each event's frame (for apiserver_watch_events_sizes). */
export interface JoinedRun {
  readonly bytes: Uint8Array;
  readonly sizes: readonly number[];
}

/**
 * Remembers the last few runs encoded. The watch cache hands one run to the watchers of a resource
 * in turn, and the frames of its events are shared (each event is encoded once), so a thousand
 * watchers would otherwise encode and copy the same bytes a thousand times. Watchers without a
 * selector that are handed the same run get the same array (registry watch), found here by
 * identity; a run that is another array of the same frames (a queued run of a watcher in step
 * with the others) is found by its frames; a watcher whose run differs (it fell behind, or its
 * selector left an event out) joins its own.
 */
export class JoinedRuns {
  private readonly recent: { run: readonly ApiWatchEvent[]; frames: readonly Uint8Array[]; joined: JoinedRun }[] = [];

  /** `chunked`: each run is one HTTP/1.1 chunk, its size line and CRLF included. */
  constructor(
    private readonly frame: (event: ApiWatchEvent) => Uint8Array,
    private readonly options: { chunked?: boolean; capacity?: number } = {},
  ) {}

  join(run: readonly ApiWatchEvent[]): JoinedRun {
    for (const entry of this.recent) if (entry.run === run) return entry.joined;
    const frames = run.map(this.frame);
    const joined = this.recent.find((entry) => sameFrames(entry.frames, frames))?.joined ?? {
      bytes: this.options.chunked ? chunk(frames) : frames.length === 1 ? frames[0]! : Buffer.concat(frames),
      sizes: frames.map((frame) => frame.byteLength),
    };
    if (this.recent.unshift({ run, frames, joined }) > (this.options.capacity ?? 4)) this.recent.pop();
    return joined;
  }
}

/** The same frame objects in the same order: shared frames are compared by identity, not by bytes. */
function sameFrames(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const CRLF = Buffer.from('\r\n');

function chunk(frames: readonly Uint8Array[]): Buffer {
  const size = frames.reduce((sum, frame) => sum + frame.byteLength, 0);
  return Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), ...frames, CRLF]);
}
