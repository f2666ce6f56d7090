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
    return this.remembered(run, run.map(this.frame));
  }

  private remembered(run: readonly ApiWatchEvent[], frames: readonly Uint8Array[]): JoinedRun {
    const joined = this.recent.find((entry) => sameFrames(entry.frames, frames))?.joined ?? this.joined(frames);
    if (this.recent.unshift({ run, frames, joined }) > (this.options.capacity ?? 4)) this.recent.pop();
    return joined;
  }

  private joined(frames: readonly Uint8Array[]): JoinedRun {
    return {
      bytes: this.options.chunked ? chunk(frames) : frames.length === 1 ? frames[0]! : Buffer.concat(frames),
      sizes: frames.map((frame) => frame.byteLength),
    };
  }

  /**
   * The next piece of `run` from `at` on, of about `maxBytes`, and where the piece after it starts:
   * whole frames joined while they come to less than `maxBytes`, or a part of one frame larger than
   * that (a part as it is, for plain streams, or as one HTTP/1.1 chunk). A large run (a watch's
   * initial state) goes out a piece at a time as the client takes it, so what a watcher holds is a
   * piece, whatever the size of its objects. Frames are sized as events that began in the piece.
   */
  piece(run: readonly ApiWatchEvent[], at: RunPosition, maxBytes: number): { joined: JoinedRun; next: RunPosition } {
    if (at.index === 0 && at.offset === 0) {
      for (const entry of this.recent) if (entry.run === run && entry.joined.bytes.byteLength <= maxBytes) return { joined: entry.joined, next: { index: run.length, offset: 0 } };
    }
    // A frame begun in an earlier piece is the one made then: a Table's frames are made per watcher.
    const first = at.frame ?? this.frame(run[at.index]!);
    if (at.offset > 0 || first.byteLength > maxBytes) {
      const end = Math.min(first.byteLength, at.offset + maxBytes);
      const part = first.subarray(at.offset, end);
      const next = end < first.byteLength ? { index: at.index, offset: end, frame: first } : { index: at.index + 1, offset: 0 };
      return { joined: { bytes: this.options.chunked ? chunk([part]) : part, sizes: at.offset === 0 ? [first.byteLength] : [] }, next };
    }
    const frames = [first];
    let bytes = first.byteLength;
    let index = at.index + 1;
    let left: Uint8Array | undefined;
    for (; index < run.length; index++) {
      const frame = this.frame(run[index]!);
      if (bytes + frame.byteLength > maxBytes) {
        left = frame; // the next piece's first
        break;
      }
      frames.push(frame);
      bytes += frame.byteLength;
    }
    // A whole run is remembered, to be shared with the watchers handed the same one.
    const whole = at.index === 0 && index === run.length;
    return { joined: whole ? this.remembered(run, frames) : this.joined(frames), next: { index, offset: 0, ...(left && { frame: left }) } };
  }
}

/** A place in a run of events: an event, and a byte offset in its frame (made when it began). */
export interface RunPosition {
  index: number;
  offset: number;
  frame?: Uint8Array;
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
