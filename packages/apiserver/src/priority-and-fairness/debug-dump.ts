// The debug endpoints of priority and fairness (upstream's apf_controller_debug.go):
// /debug/api_priority_and_fairness/dump_priority_levels, dump_queues and dump_requests, as text in
// upstream's layout: cells joined by ",\t" through Go's tabwriter (minimum width 8, padding 1,
// spaces), a header row first. Served on the mux, so behind authentication and authorization as
// any non-resource GET.
import { formatDuration } from '@plat/apimachinery';
import type { LevelSnapshot, RequestDump } from '@plat/flowcontrol';
import type { Handler, PathMux } from '@plat/filters';

export const DEBUG_PREFIX = '/debug/api_priority_and_fairness';

/** Go's text/tabwriter with minwidth 8, tabwidth 0, padding 1, padchar ' ', no flags: tab-terminated cells aligned per column. */
export function tabwrite(lines: readonly string[]): string {
  const rows = lines.map((line) => line.split('\t'));
  // A cell is in a column only when a tab ends it; the text after the last tab is not aligned.
  const widths: number[] = [];
  for (const cells of rows) {
    for (let c = 0; c < cells.length - 1; c++) widths[c] = Math.max(widths[c] ?? 8, cells[c]!.length + 1);
  }
  return rows.map((cells) => cells.map((cell, c) => (c < cells.length - 1 ? cell.padEnd(widths[c]!) : cell)).join('')).join('\n') + '\n';
}

const row = (...cells: (string | number | boolean)[]): string => cells.map(String).join(',\t');

/** Go's time.RFC3339Nano in UTC: trailing zeros of the fraction dropped. */
function rfc3339Nano(wallMs: number): string {
  const iso = new Date(Math.floor(wallMs)).toISOString();
  const nanos = Math.round((wallMs - Math.floor(wallMs / 1000) * 1000) * 1e6);
  const fraction = String(nanos).padStart(9, '0').replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

interface RequestDetails {
  user?: string;
  verb?: string;
  path?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
}

export function dumpPriorityLevels(levels: readonly LevelSnapshot[]): string {
  const lines = [row('PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests')];
  for (const level of [...levels].sort((a, b) => (a.priorityLevel.metadata.name < b.priorityLevel.metadata.name ? -1 : 1))) {
    const q = level.queues;
    const active = q.queues.filter((queue) => queue.waiting.length > 0).length;
    const idle = q.waiting === 0 && q.executing === 0 && q.seatsInUse === 0;
    // Our queue set counts a wait ended by its deadline or its client alike, as cancelled.
    lines.push(row(level.priorityLevel.metadata.name, active, idle, level.quiescing, q.waiting, q.executing, q.dispatched, q.rejected, 0, q.cancelled));
  }
  return tabwrite(lines);
}

export function dumpQueues(levels: readonly LevelSnapshot[]): string {
  const lines = [row('PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum')];
  for (const level of levels) {
    for (const [i, q] of level.queues.queues.entries()) {
      lines.push(row(level.priorityLevel.metadata.name, i, q.waiting.length, q.executing.length, q.seatsInUse, q.nextDispatchR, q.initialSeatsSum, q.maxSeatsSum, q.totalWorkSum));
    }
  }
  return tabwrite(lines);
}

/** toWall: a time on the controller's clock as wall-clock milliseconds. */
export function dumpRequests(levels: readonly LevelSnapshot[], includeDetails: boolean, toWall: (t: number) => number): string {
  let header = row('PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency', 'StartTime');
  if (includeDetails) header += ',\t' + row('UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource');
  const lines = [header];
  for (const level of levels) {
    const line = (iq: number, ir: number, r: RequestDump): void => {
      // A waiting request has no start: Go prints its zero time.
      const start = r.startTime === undefined ? '0001-01-01T00:00:00Z' : rfc3339Nano(toWall(r.startTime));
      let text = row(level.priorityLevel.metadata.name, r.flowSchema, iq, ir, r.flowDistinguisher, rfc3339Nano(toWall(r.arriveTime)), r.workEstimate.initialSeats, r.workEstimate.finalSeats, formatDuration(r.workEstimate.additionalLatencyMs), start);
      if (includeDetails) {
        const d = (r.details ?? {}) as RequestDetails;
        const gv = d.apiGroup ? `${d.apiGroup}/${d.apiVersion ?? ''}` : (d.apiVersion ?? '');
        text += ',\t' + row(d.user ?? '', d.verb ?? '', d.path ?? '', d.namespace ?? '', d.name ?? '', gv, d.resource ?? '', d.subresource ?? '');
      }
      lines.push(text);
    };
    for (const [iq, q] of level.queues.queues.entries()) {
      q.waiting.forEach((r, ir) => line(iq, ir, r));
      for (const r of q.executing) line(iq, -1, r);
    }
    for (const r of level.queues.queuelessExecuting) line(-1, -1, r);
  }
  return tabwrite(lines);
}

/** Installs the three endpoints on the mux. */
export function serveDebugDumps(mux: PathMux, snapshot: () => LevelSnapshot[], toWall: (t: number) => number): void {
  const text = (body: () => string): Handler => (ctx) => {
    ctx.body = body();
    ctx.set('Content-Type', 'text/plain; charset=utf-8');
  };
  mux.handle(`${DEBUG_PREFIX}/dump_priority_levels`, text(() => dumpPriorityLevels(snapshot())));
  mux.handle(`${DEBUG_PREFIX}/dump_queues`, text(() => dumpQueues(snapshot())));
  mux.handle(`${DEBUG_PREFIX}/dump_requests`, (ctx) => text(() => dumpRequests(snapshot(), String(ctx.query.includeRequestDetails ?? '').length > 0, toWall))(ctx));
}
