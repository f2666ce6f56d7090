// The audit log (--audit-log-path): one JSON line per request at the ResponseComplete stage, level
// Metadata, in upstream's audit.k8s.io/v1 Event shape. Lines go through a buffered file stream so a
// request never waits for the disk; close() flushes them all (graceful shutdown).
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Logger } from 'pino';

export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

/** An audit.k8s.io/v1 Event at level Metadata (no request or response bodies). */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: 'Metadata';
  auditID: string;
  stage: 'ResponseComplete';
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus: { metadata: Record<string, never>; code: number; status?: string; message?: string; reason?: string };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where events go: a sink that must not block. */
export interface AuditSink {
  write(event: AuditEvent): void;
  /** Resolves once every event written before it is stored. */
  close(): Promise<void>;
}

/** Events as JSON lines appended to a file, through the stream's in-memory buffer. */
export class AuditFileLog implements AuditSink {
  private readonly stream: WriteStream;
  private failed = false;

  constructor(path: string, private readonly logger: Logger) {
    this.stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    this.stream.on('error', (err) => {
      // Logged once: serving goes on without the audit log rather than failing every request.
      if (!this.failed) logger.error({ err, path }, 'audit log: cannot write; audit events are being lost');
      this.failed = true;
    });
  }

  /** Resolves once the file is open (or failed to open), for callers that want to fail early. */
  async ready(): Promise<void> {
    if (this.stream.pending) await Promise.race([once(this.stream, 'ready'), once(this.stream, 'error').catch(() => undefined)]).catch(() => undefined);
  }

  write(event: AuditEvent): void {
    if (this.failed || this.stream.writableEnded) return;
    // write() buffers when the disk is slow; the request does not wait.
    this.stream.write(`${JSON.stringify(event)}\n`);
  }

  async close(): Promise<void> {
    if (this.stream.writableEnded) return;
    const finished = once(this.stream, 'finish').catch(() => undefined);
    this.stream.end();
    if (!this.failed) await finished;
    this.logger.debug('audit log: flushed and closed');
  }
}

