// The audit log (--audit-log-path): audit.<domain>/v1 Events in upstream's shape, one a line, as
// JSON (--audit-log-format=json) or upstream's legacy text. Lines go through a buffered file
// stream so a request never waits for the disk; the file is rotated past --audit-log-maxsize as
// upstream's (lumberjack's) is: renamed to <name>-<UTC time>.<ext>, the oldest backups removed past
// --audit-log-maxbackup and --audit-log-maxage. close() flushes every line (graceful shutdown).
import { createWriteStream, openSync, readdirSync, renameSync, statSync, unlinkSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, extname, join } from 'node:path';
import { goQuote } from '@plat/apimachinery';
import type { Logger } from 'pino';
import type { AuditLevel, AuditStage } from './audit-policy.js';

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

export interface AuditResponseStatus {
  metadata: Record<string, never>;
  code: number;
  status?: string;
  message?: string;
  reason?: string;
}

/** An audit.<domain>/v1 Event, its fields in upstream's order. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: Exclude<AuditLevel, 'None'>;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
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

export type AuditLogFormat = 'json' | 'legacy';

/** Go's RFC3339Nano: the fraction without its trailing zeros. */
function rfc3339Nano(microTime: string): string {
  return microTime.replace(/\.(\d*?)0*Z$/, (_match, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

const quotedList = (values: readonly string[]): string => values.map(goQuote).join(',');

/** Upstream's legacy line (audit.EventString). */
export function legacyAuditLine(event: AuditEvent): string {
  const username = event.user.username || '<none>';
  const groups = event.user.username && event.user.groups?.length ? quotedList(event.user.groups) : '<none>';
  const as = event.impersonatedUser ? (event.impersonatedUser.username ?? '') : '<self>';
  const asGroups = event.impersonatedUser?.groups ? quotedList(event.impersonatedUser.groups) : '<lookup>';
  const fields: [string, string][] = [
    ['id', event.auditID],
    ['stage', event.stage],
    ['ip', event.sourceIPs[0] ?? '<unknown>'],
    ['method', event.verb],
    ['user', username],
    ['groups', groups],
    ['as', as],
    ['asgroups', asGroups],
    ['user-agent', event.userAgent ?? ''],
    ['namespace', event.objectRef?.namespace || '<none>'],
    ['uri', event.requestURI],
  ];
  const response = event.responseStatus ? String(event.responseStatus.code) : '<deferred>';
  return `${rfc3339Nano(event.requestReceivedTimestamp)} AUDIT: ${fields.map(([name, value]) => `${name}=${goQuote(value)}`).join(' ')} response="${response}"`;
}

export interface AuditFileOptions {
  format?: AuditLogFormat;
  /** Rotate before the file would pass this many bytes; upstream's (lumberjack's) default 100 MB when 0. */
  maxSizeBytes?: number;
  /** Backups kept (the newest); 0 keeps all. */
  maxBackups?: number;
  /** Backups older than this many days are removed; 0 keeps them. */
  maxAgeDays?: number;
  /** The clock, for backup names and ages (tests). */
  now?: () => Date;
}

const MEGABYTE = 1024 * 1024;

/** Lumberjack's backup time: UTC, `2006-01-02T15-04-05.000`. */
const backupTime = (date: Date): string => date.toISOString().replace(/:/g, '-').replace(/Z$/, '');

/** Events as lines appended to a file, through the stream's in-memory buffer, rotated by size. */
export class AuditFileLog implements AuditSink {
  private stream: WriteStream;
  private size: number;
  private failed = false;
  private readonly maxSize: number;
  private readonly format: AuditLogFormat;
  private readonly now: () => Date;

  constructor(
    private readonly path: string,
    private readonly logger: Logger,
    private readonly options: AuditFileOptions = {},
  ) {
    this.format = options.format ?? 'json';
    this.maxSize = options.maxSizeBytes || 100 * MEGABYTE;
    this.now = options.now ?? (() => new Date());
    this.size = this.currentSize();
    this.stream = this.open();
  }

  private currentSize(): number {
    try {
      return statSync(this.path).size;
    } catch {
      return 0;
    }
  }

  private open(): WriteStream {
    let stream: WriteStream;
    try {
      // Opened at once, not when the stream gets to it: a rotation may rename the file before then.
      stream = createWriteStream(this.path, { fd: openSync(this.path, 'a', 0o600) });
    } catch {
      // The stream reports the failure as it would have: one log line, events lost from then on.
      stream = createWriteStream(this.path, { flags: 'a', mode: 0o600 });
    }
    stream.on('error', (err) => {
      // Logged once: serving goes on without the audit log rather than failing every request.
      if (!this.failed) this.logger.error({ err, path: this.path }, 'audit log: cannot write; audit events are being lost');
      this.failed = true;
    });
    return stream;
  }

  /** Resolves once the file is open (or failed to open), for callers that want to fail early. */
  async ready(): Promise<void> {
    if (this.stream.pending) await Promise.race([once(this.stream, 'ready'), once(this.stream, 'error').catch(() => undefined)]).catch(() => undefined);
  }

  write(event: AuditEvent): void {
    if (this.failed || this.stream.writableEnded) return;
    const line = `${this.format === 'legacy' ? legacyAuditLine(event) : JSON.stringify(event)}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.size > 0 && this.size + bytes > this.maxSize) this.rotate();
    this.size += bytes;
    // write() buffers when the disk is slow; the request does not wait.
    this.stream.write(line);
  }

  /**
   * The file renamed to its backup name and a new one started. The old stream's buffered lines
   * still reach the renamed file: its descriptor follows the file, not the name.
   */
  private rotate(): void {
    const ext = extname(this.path);
    const backup = join(dirname(this.path), `${basename(this.path, ext)}-${backupTime(this.now())}${ext}`);
    try {
      renameSync(this.path, backup);
    } catch (err) {
      this.logger.error({ err, path: this.path }, 'audit log: cannot rotate; writing on');
      return;
    }
    this.stream.end();
    this.stream = this.open();
    this.size = 0;
    this.removeOldBackups();
  }

  /** Lumberjack's rule: the newest maxBackups backups kept, none older than maxAge days. */
  private removeOldBackups(): void {
    const { maxBackups = 0, maxAgeDays = 0 } = this.options;
    if (!maxBackups && !maxAgeDays) return;
    const ext = extname(this.path);
    const prefix = `${basename(this.path, ext)}-`;
    const dir = dirname(this.path);
    const stamp = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;
    const backups: { file: string; time: number }[] = [];
    for (const file of readdirSync(dir)) {
      if (!file.startsWith(prefix) || !file.endsWith(ext)) continue;
      const match = stamp.exec(file.slice(prefix.length, file.length - ext.length));
      if (match) backups.push({ file, time: Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`) });
    }
    backups.sort((a, b) => b.time - a.time);
    const cutoff = this.now().getTime() - maxAgeDays * 24 * 3600 * 1000;
    backups.forEach(({ file, time }, i) => {
      if ((maxBackups && i >= maxBackups) || (maxAgeDays && time < cutoff)) {
        try {
          unlinkSync(join(dir, file));
        } catch (err) {
          this.logger.warn({ err, file }, 'audit log: cannot remove an old backup');
        }
      }
    });
  }

  async close(): Promise<void> {
    if (this.stream.writableEnded) return;
    const finished = once(this.stream, 'finish').catch(() => undefined);
    this.stream.end();
    if (!this.failed) await finished;
    this.logger.debug('audit log: flushed and closed');
  }
}
