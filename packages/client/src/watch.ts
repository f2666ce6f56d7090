// A watch stream: the JSON lines of a watch response as events, until the server ends it, it is cut,
// or its reader stops it.
import type { RestResponse } from './rest.js';
import { StringDecoder } from 'node:string_decoder';
import type { KubeObject, WatchEvent } from './types.js';

/** The stream ended without the server finishing it (a reset connection, a malformed line). */
export class WatchBrokenError extends Error {
  override readonly name = 'WatchBrokenError';
}

export class WatchStream<T extends KubeObject = KubeObject> implements AsyncIterable<WatchEvent<T>> {
  private stopped = false;
  private iterating = false;

  constructor(private readonly response: RestResponse) {}

  /** Ends the stream: iteration finishes without an error. */
  stop(): void {
    this.stopped = true;
    this.response.destroy();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * The events in order. Iteration ends when the server ends the response (a watch's timeout) or
   * when stop() is called; it throws WatchBrokenError when the stream is cut. One reader only.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<T>, void, undefined> {
    if (this.iterating) throw new Error('a watch stream has one reader');
    this.iterating = true;
    const decoder = new StringDecoder('utf8');
    let buffer = '';
    try {
      for await (const chunk of this.response.body) {
        buffer += decoder.write(chunk as Buffer);
        for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (!line) continue;
          let event: WatchEvent<T>;
          try {
            event = JSON.parse(line) as WatchEvent<T>;
          } catch {
            throw new WatchBrokenError(`a watch event is not JSON: ${line.slice(0, 200)}`);
          }
          yield event;
          if (this.stopped) return;
        }
      }
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof WatchBrokenError) throw error;
      throw new WatchBrokenError(`the watch stream broke: ${(error as Error).message}`, { cause: error });
    } finally {
      this.response.destroy();
    }
    if (!this.stopped && !this.response.complete) throw new WatchBrokenError('the watch stream was cut');
  }
}
