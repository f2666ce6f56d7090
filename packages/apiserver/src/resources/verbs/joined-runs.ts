// The bytes of a run of watch events, joined once for all the watchers that write the same run.

/**
 * Remembers the last few runs joined. The watch cache hands one run to every watcher of a
 * resource, and the frames of its events are shared (each event is encoded once), so a thousand
 * watchers would otherwise copy the same bytes a thousand times. Watchers are resumed one after
 * another, so the runs of one hand-over follow each other: a few entries catch them, and a
 * watcher whose run differs (it fell behind, or its selector left an event out) joins its own.
 */
export class JoinedRuns {
  private readonly recent: { frames: readonly Uint8Array[]; joined: Uint8Array }[] = [];

  /** `chunked`: each run is one HTTP/1.1 chunk, its size line and CRLF included. */
  constructor(private readonly options: { chunked?: boolean; capacity?: number } = {}) {}

  join(frames: readonly Uint8Array[]): Uint8Array {
    if (frames.length === 1 && !this.options.chunked) return frames[0]!;
    for (const entry of this.recent) if (sameFrames(entry.frames, frames)) return entry.joined;
    const joined = this.options.chunked ? chunk(frames) : Buffer.concat(frames);
    if (this.recent.unshift({ frames, joined }) > (this.options.capacity ?? 4)) this.recent.pop();
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
