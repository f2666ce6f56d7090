// The one connection manager of a replica's etcd traffic: unary calls (ranges, transactions,
// compaction, status) and streams (watches) all go over one HTTP/2 session (h2/) to one member at a
// time, under one policy for failing over and for keeping the connection honest.
//
// - The session stays on its member while that member serves. It ends when the connection fails,
//   when the member stops answering (h2/'s keepalive: a PING after a call has waited 1 s with
//   nothing heard, no answer within 1.5 s), when it never answers a new connection (a frozen process
//   or a blackholing proxy: connect timeout), or when etcd says the member cannot serve (gRPC
//   UNAVAILABLE: "no leader", "request timed out"). Its member is then passed over for a while, and
//   the next call or stream dials the next member in the list.
// - Every call carries etcd's `hasleader` metadata: a member cut off from its leader answers "no
//   leader" at once (and ends its watches), instead of holding a write until its own 7 s timeout.
// - A call that failed is tried again on another member, each member at most once, within its
//   deadline: always when etcd certainly never saw it (the connection never came up, a GOAWAY or
//   REFUSED_STREAM above what the server took); otherwise only when the caller says it is safe
//   (reads, and writes guarded by a revision compare: a retried write that had already been applied
//   fails its compare rather than apply twice; see `callResent`).
// The etcd3 client's path (cockatiel policies, a connection pool, grpc-js's interceptor and retry
// layers) cost 140-160 us of CPU per call here, node:http2's 50-80 us (a Duplex stream, an async
// resource and a round of events per call); see bench/storage for today's figures.
import { encodeHeaders } from './h2/hpack.js';
import { H2Error, H2Session, type H2Request, type H2Stream, type KeepaliveOptions, type TlsCredentials } from './h2/session.js';
import { GRPC_UNAVAILABLE, GrpcError, GrpcUnavailableError, MessageReader, frame, grpcStatus, unframe } from './grpc.js';

export { GrpcError, GrpcUnavailableError } from './grpc.js';

/** How a failed call may be tried again on another member. */
export type RetryPolicy =
  /** Only where etcd certainly never saw it. */
  | 'unsent'
  /** After any failure of the connection or the member: reads, and writes guarded by a compare. */
  | 'safe';

export interface CallOptions {
  retry?: RetryPolicy;
  /** This call's deadline, dialing and retries included; default the channel's. */
  timeoutMs?: number;
  /**
   * A small write (a transaction) with retry 'safe': abandoned and tried again when left
   * unanswered for 2 s after a member failed (see sweepStale). Not for reads: a follower answers
   * a read cut short by an election with "leader changed" itself, and a large read may take longer.
   */
  retryStale?: boolean;
}

export interface EndpointEvent {
  endpoint: string;
  /** down: a connection to it failed or it could not serve; up: it answers again. */
  state: 'up' | 'down';
  reason?: string;
}

export interface EtcdChannelOptions {
  /** etcd client URLs, e.g. https://127.0.0.1:2379. */
  endpoints: readonly string[];
  /** For https endpoints: the CA, and this client's certificate and key. */
  tls?: TlsCredentials;
  /** How long a call may take, dialing and retries included. */
  timeoutMs: number;
  /** How long a new connection may take to hear the server's SETTINGS. Default 2 s. */
  connectTimeoutMs?: number;
  keepalive?: KeepaliveOptions;
  /**
   * Streams one session carries before the next is dialed. HTTP/2 stream ids are 31 bits and a
   * client's are odd: about a billion per connection, after which node refuses new streams. At
   * 5,000 calls a second that is under three days. Default 2^29.
   */
  maxStreamsPerSession?: number;
  /** A member's state changed (for the log). */
  onEndpointEvent?: (event: EndpointEvent) => void;
}

/** What a stream's owner hears: each gRPC message, then the end (an error unless etcd ended it with OK). */
export interface StreamHandlers {
  onMessage(message: Buffer): void;
  onEnd(error: Error | undefined): void;
}

export interface ChannelStream {
  /** The member it runs on. */
  readonly endpoint: string;
  /** Sends one message. */
  send(message: Buffer): void;
  pause(): void;
  resume(): void;
  /** Ends it from this side; its handlers hear nothing more. */
  cancel(): void;
}

/** The connection's receive window: large enough that a list of thousands of objects is not held back. */
const WINDOW_BYTES = 32 << 20;
/**
 * Each stream's: what a paused watch may still be sent, and what a range answer gets before its
 * first WINDOW_UPDATE (given back at half, so a long answer streams on).
 */
const STREAM_WINDOW_BYTES = 1 << 20;
const DEFAULT_CONNECT_TIMEOUT_MS = 2000;
/** See KeepaliveOptions. minIntervalMs is etcd's default --grpc-keepalive-min-time. */
const DEFAULT_KEEPALIVE: KeepaliveOptions = { stallMs: 1000, idleMs: 6000, timeoutMs: 1500, minIntervalMs: 5000 };
/** How long a member that failed is passed over while another may serve. */
const DOWN_MS = 1000;
/** How long a health probe waits for the member in use before asking the others too. */
const HEDGE_MS = 300;
/**
 * For TROUBLE_MS after a member failed, a call that may be retried and has gone unanswered for
 * STALE_SWEEPS sweeps of SWEEP_MS (1.5-2 s) is abandoned and tried again (see sweepStale).
 */
const TROUBLE_MS = 10_000;
const SWEEP_MS = 500;
const STALE_SWEEPS = 4;
/** How long a call waits out a leader election (etcd's: about a second, more if votes split). */
const LEADER_WAIT_MS = 3000;
/** The first pause before asking again during an election; it doubles up to 500 ms. */
const LEADER_RETRY_MS = 100;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** TLS failures name the kube-apiserver flag that gives what to fix. */
function withFlagHint(message: string): string {
  if (message.includes("server's certificate is not trusted")) return `${message}; the CA is --etcd-cafile`;
  if (message.includes('refused the TLS handshake')) return `${message}; the client certificate is --etcd-certfile, its key --etcd-keyfile`;
  return message;
}

/** The failures of a call's attempts, a member's repeated ones said once with their count. */
function summarize(failures: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const failure of failures) counts.set(failure, (counts.get(failure) ?? 0) + 1);
  return [...counts].map(([failure, count]) => (count > 1 ? `${failure} (${count} times)` : failure)).join('; ');
}

interface Endpoint {
  url: URL;
  name: string;
  downUntil: number;
  /** The last failure, until it answers again. */
  failure: string | undefined;
}

export class EtcdChannel {
  private readonly endpoints: Endpoint[];
  private session: H2Session | undefined;
  private sessionEndpoint: Endpoint | undefined;
  /** Index of the member in use (or last used). */
  private current = 0;
  private closed = false;
  private streamsOnSession = 0;
  /** When a call or probe was last answered: the store served then. */
  lastAnsweredAt = 0;
  /** Calls that may be retried, in flight (see sweepStale). */
  private readonly inFlight = new Set<{ call: H2Request; sweeps: number }>();
  /** Until when stale calls are swept: a while after a member failed. */
  private troubleUntil = 0;
  private sweeper: NodeJS.Timeout | undefined;
  /** Per endpoint and path, the request headers but for grpc-timeout, encoded once. */
  private readonly headerBlocks = new Map<string, Buffer>();

  constructor(private readonly options: EtcdChannelOptions) {
    if (options.endpoints.length === 0) throw new Error('no etcd endpoints');
    this.endpoints = options.endpoints.map((endpoint) => {
      const url = new URL(endpoint);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`etcd endpoint ${endpoint}: the scheme must be http or https`);
      return { url, name: `${url.protocol}//${url.host}`, downUntil: 0, failure: undefined };
    });
  }

  /** The member the channel uses now (or will dial next). */
  get endpoint(): string {
    return (this.sessionEndpoint ?? this.endpoints[this.current]!).name;
  }

  /** Calls `path` (e.g. /etcdserverpb.KV/Range) with an encoded request; resolves the encoded response. */
  async call(path: string, request: Buffer, options?: CallOptions): Promise<Buffer> {
    return (await this.callResent(path, request, options)).body;
  }

  /**
   * As `call`, saying whether the answer is from a retry after a failure etcd may have acted on:
   * then a compare that fails may be this very write, applied the first time.
   */
  async callResent(path: string, request: Buffer, options: CallOptions = {}): Promise<{ body: Buffer; resent: boolean }> {
    if (this.closed) throw new GrpcUnavailableError('the etcd client is closed');
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    const safe = options.retry === 'safe';
    let resent = false;
    let connectionFailures = 0;
    let leaderWaitStarted = 0;
    let pause = LEADER_RETRY_MS;
    const failures: string[] = [];
    for (;;) {
      let endpoint: Endpoint | undefined;
      try {
        const session = this.currentSession();
        endpoint = this.sessionEndpoint;
        const body = await this.attempt(session, path, request, deadline, timeoutMs, safe && options.retryStale === true);
        this.lastAnsweredAt = Date.now();
        return { body, resent };
      } catch (error) {
        const failure = classify(error);
        if (failure === 'final') throw error;
        const message = withFlagHint(error instanceof Error ? error.message : String(error));
        failures.push(`${endpoint?.name ?? 'etcd'}: ${message}`);
        if ((failure === 'member' || failure === 'no-leader') && endpoint) this.memberUnavailable(endpoint, message);
        const now = Date.now();
        // A leader election (a few seconds at most) is waited out; anything else is tried on each
        // member once.
        const electing = failure === 'no-leader' || failure === 'leader-changed';
        if (electing) leaderWaitStarted ||= now;
        else connectionFailures++;
        const notSeen = failure === 'unsent' || failure === 'no-leader';
        const withinBudget = electing ? now - leaderWaitStarted < LEADER_WAIT_MS : connectionFailures <= this.endpoints.length;
        const retry = (notSeen || safe) && withinBudget && now < deadline && !this.closed;
        if (!retry) {
          if (error instanceof GrpcError && failures.length === 1) throw error;
          throw new GrpcUnavailableError(failures.length > 1 ? `etcd ${path}: ${summarize(failures)}` : `etcd ${path}: ${message}`);
        }
        if (!notSeen) resent = true;
        if (electing) {
          await sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
          pause = Math.min(pause * 2, 500);
        }
      }
    }
  }

  /** Opens a stream (a watch) on the member in use; its failure is the owner's to act on. */
  openStream(path: string, handlers: StreamHandlers): ChannelStream {
    if (this.closed) throw new GrpcUnavailableError('the etcd client is closed');
    const session = this.currentSession();
    const endpoint = this.sessionEndpoint!;
    const reader = new MessageReader();
    let ended = false;
    const end = (error: Error | undefined): void => {
      if (ended) return;
      ended = true;
      handlers.onEnd(error);
    };
    let stream: H2Stream | undefined;
    stream = session.openStream(this.headerBlock(path, session, undefined), {
      onData: (chunk) => {
        let messages: Buffer[];
        try {
          messages = reader.push(chunk);
        } catch (error) {
          stream?.cancel();
          end(error as Error);
          return;
        }
        for (const message of messages) {
          if (ended) return;
          handlers.onMessage(message);
        }
      },
      onEnd: (result) => {
        if (result instanceof H2Error) return end(new GrpcUnavailableError(`etcd ${path} on ${endpoint.name}: ${result.message}`));
        const status = grpcStatus(result.trailers) ?? grpcStatus(result.headers);
        if (status && status.status !== 0) {
          if (status.status === GRPC_UNAVAILABLE) this.memberUnavailable(endpoint, status.message);
          return end(new GrpcError(status.status, status.message || `etcd ${path}: gRPC status ${status.status}`));
        }
        end(new GrpcUnavailableError(`etcd ended ${path} on ${endpoint.name}`));
      },
    });
    return {
      endpoint: endpoint.name,
      send: (message) => stream?.write(frame(message)),
      pause: () => stream?.pause(),
      resume: () => stream?.resume(),
      cancel: () => {
        ended = true;
        stream?.cancel();
        stream = undefined;
      },
    };
  }

  /**
   * A health probe: `path` answered by some member within `timeoutMs`. The member in use is asked
   * first; if it has not answered within a moment (or failed), every other member too, each on a
   * connection of its own, so that one silent member does not fail the probe. A member that
   * answers that a leader is being elected is asked again until the time is up. Rejects with each
   * member's reason when none answers.
   */
  probe(path: string, request: Buffer, timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.reject(new GrpcUnavailableError('the etcd client is closed'));
    const deadline = Date.now() + timeoutMs;
    return new Promise<void>((resolve, reject) => {
      const reasons = new Map<string, string>();
      const extra: H2Session[] = [];
      const timers = new Set<NodeJS.Timeout>();
      let settled = false;
      let pending = 0;
      let hedged = false;
      const summary = (): string =>
        this.endpoints.map((endpoint) => `${endpoint.name}: ${reasons.get(endpoint.name) ?? `no answer within ${timeoutMs} ms`}`).join('; ');
      const done = (error: Error | undefined): void => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        // Destroyed, not closed: one to a silent member would linger, its connection half-open.
        for (const session of extra) session.destroy('the probe is over');
        if (error) reject(error);
        else {
          this.lastAnsweredAt = Date.now();
          resolve();
        }
      };
      const later = (ms: number, action: () => void): void => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          action();
        }, ms);
        timers.add(timer);
      };
      const ask = (endpoint: Endpoint, session: () => H2Session, pause = LEADER_RETRY_MS): void => {
        pending++;
        let current: H2Session;
        try {
          current = session();
        } catch (error) {
          return failed(endpoint, session, error, pause);
        }
        this.attempt(current, path, request, deadline, timeoutMs).then(
          () => done(undefined),
          (error: unknown) => failed(endpoint, session, error, pause),
        );
      };
      const failed = (endpoint: Endpoint, session: () => H2Session, error: unknown, pause: number): void => {
        pending--;
        if (settled) return;
        reasons.set(endpoint.name, withFlagHint(error instanceof Error ? error.message : String(error)));
        const kind = classify(error);
        if ((kind === 'no-leader' || kind === 'leader-changed') && Date.now() + pause < deadline) {
          pending++;
          later(pause, () => {
            pending--;
            if (!settled) ask(endpoint, session, Math.min(pause * 2, 500));
          });
        }
        if (!hedged) hedge();
        else if (pending === 0) done(new GrpcUnavailableError(`no etcd member answered: ${summary()}`));
      };
      const hedge = (): void => {
        if (hedged || settled) return;
        hedged = true;
        for (const endpoint of this.endpoints) {
          if (endpoint === inUse) continue;
          let own: H2Session | undefined;
          ask(endpoint, () => {
            if (!own || own.closed) {
              own = new H2Session(endpoint.url, this.sessionOptions());
              extra.push(own);
            }
            return own;
          });
        }
        if (pending === 0) done(new GrpcUnavailableError(`no etcd member answered: ${summary()}`));
      };
      later(Math.min(HEDGE_MS, timeoutMs / 2), hedge);
      later(timeoutMs, () => done(new GrpcUnavailableError(`no etcd member answered within ${timeoutMs} ms: ${summary()}`)));
      let inUse: Endpoint | undefined;
      try {
        this.currentSession();
        inUse = this.sessionEndpoint;
      } catch {
        // every member is tried below
      }
      if (inUse) {
        const endpoint = inUse;
        ask(endpoint, () => (this.sessionEndpoint === endpoint && this.session ? this.session : this.sessionFor(endpoint, extra)));
      } else hedge();
    });
  }

  /** A connection of the probe's own to `endpoint`. */
  private sessionFor(endpoint: Endpoint, owned: H2Session[]): H2Session {
    const session = new H2Session(endpoint.url, this.sessionOptions());
    owned.push(session);
    return session;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.session?.close();
    this.session = undefined;
  }

  private sessionOptions(): ConstructorParameters<typeof H2Session>[1] {
    return {
      windowBytes: WINDOW_BYTES,
      streamWindowBytes: STREAM_WINDOW_BYTES,
      connectTimeoutMs: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      keepalive: this.options.keepalive ?? DEFAULT_KEEPALIVE,
      ...(this.options.tls && { tls: this.options.tls }),
    };
  }

  /** The session in use, or a new one to the first member in order from the current that is not passed over. */
  private currentSession(): H2Session {
    const current = this.session;
    if (current && !current.closed) {
      if (++this.streamsOnSession <= (this.options.maxStreamsPerSession ?? 2 ** 29) && current.streamIdsLeft > 0) return current;
      // Out of stream ids soon: dial afresh; this one ends once every call on it is answered.
      current.close();
    }
    this.streamsOnSession = 1;
    const endpoint = this.pickEndpoint();
    const session = new H2Session(endpoint.url, this.sessionOptions());
    session.onReady(() => {
      if (endpoint.failure !== undefined) {
        endpoint.failure = undefined;
        this.options.onEndpointEvent?.({ endpoint: endpoint.name, state: 'up' });
      }
    });
    session.onEnd((reason) => {
      if (reason !== undefined) this.memberUnavailable(endpoint, reason);
      if (this.session === session) {
        this.session = undefined;
        this.sessionEndpoint = undefined;
      }
    });
    this.session = session;
    this.sessionEndpoint = endpoint;
    return session;
  }

  private pickEndpoint(): Endpoint {
    const now = Date.now();
    const count = this.endpoints.length;
    for (let i = 0; i < count; i++) {
      const index = (this.current + i) % count;
      if (this.endpoints[index]!.downUntil <= now) {
        this.current = index;
        return this.endpoints[index]!;
      }
    }
    // Every member failed lately: the one passed over longest ago.
    let soonest = 0;
    for (let i = 1; i < count; i++) if (this.endpoints[i]!.downUntil < this.endpoints[soonest]!.downUntil) soonest = i;
    this.current = soonest;
    return this.endpoints[soonest]!;
  }

  /**
   * After a member failed, the calls that may be retried and have waited STALE_SWEEPS sweeps are
   * abandoned and tried again. A follower that forwarded a write to a leader that has just died
   * holds it until its own request timeout (7 s): the write was lost with the leader, and the
   * retry (guarded by its compare) goes to a member that knows the new leader.
   */
  private sweepStale(): void {
    if (Date.now() > this.troubleUntil) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
      return;
    }
    for (const entry of this.inFlight) {
      if (++entry.sweeps < STALE_SWEEPS) continue;
      this.inFlight.delete(entry);
      entry.call.cancel(new H2Error(`no answer within ${(STALE_SWEEPS * SWEEP_MS) / 1000} s while a member had failed`, true));
    }
  }

  /** The member failed or cannot serve: pass it over for a while, leaving its session. */
  private memberUnavailable(endpoint: Endpoint, reason: string): void {
    this.troubleUntil = Date.now() + TROUBLE_MS;
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweepStale(), SWEEP_MS);
      this.sweeper.unref();
    }
    endpoint.downUntil = Date.now() + DOWN_MS;
    if (endpoint.failure === undefined) this.options.onEndpointEvent?.({ endpoint: endpoint.name, state: 'down', reason });
    endpoint.failure = reason;
    if (this.sessionEndpoint === endpoint && this.session) {
      // Calls in flight on it finish there; new ones go elsewhere.
      this.session.close();
      this.session = undefined;
      this.sessionEndpoint = undefined;
    }
  }

  /** The request's header block: all but grpc-timeout encoded once per endpoint and path. */
  private headerBlock(path: string, session: H2Session, timeoutMs: number | undefined): Buffer {
    const { authority } = session;
    const key = `${session.scheme}://${authority} ${path}`;
    let block = this.headerBlocks.get(key);
    if (!block) {
      block = encodeHeaders([
        [':method', 'POST'],
        [':scheme', session.scheme],
        [':path', path],
        [':authority', authority],
        ['content-type', 'application/grpc'],
        ['te', 'trailers'],
        // etcd refuses at once, rather than wait for a leader, when the member has none.
        ['hasleader', 'true'],
      ]);
      this.headerBlocks.set(key, block);
    }
    return timeoutMs === undefined ? block : Buffer.concat([block, encodeHeaders([['grpc-timeout', `${timeoutMs}m`]])]);
  }

  /** @param watched the call may be abandoned for another try after a member failure (see sweepStale) */
  private async attempt(session: H2Session, path: string, request: Buffer, deadline: number, timeoutMs: number, watched = false): Promise<Buffer> {
    const remaining = Math.max(1, deadline - Date.now());
    const call: H2Request = session.request(this.headerBlock(path, session, remaining), frame(request));
    const timer = setTimeout(() => call.cancel(new DeadlineError(`etcd did not answer ${path} within ${timeoutMs} ms`)), remaining);
    const entry = watched ? { call, sweeps: 0 } : undefined;
    if (entry) this.inFlight.add(entry);
    let response;
    try {
      response = await call.response;
    } finally {
      clearTimeout(timer);
      if (entry) this.inFlight.delete(entry);
    }
    const result = grpcStatus(response.trailers) ?? grpcStatus(response.headers);
    if (result === undefined) throw new H2Error(`etcd ${path}: the stream closed without a status`, true);
    if (result.status !== 0) throw new GrpcError(result.status, result.message || `etcd ${path}: gRPC status ${result.status}`);
    return unframe(response.body);
  }
}

/** The call's own deadline passed. */
class DeadlineError extends GrpcUnavailableError {}

/**
 * unsent: etcd never saw the call; no-leader: a member without a leader turned it away before acting
 * on it; leader-changed: a read cut short by an election; member: etcd answered that this member
 * cannot serve (perhaps after acting on it, as "request timed out"); transport: the connection
 * failed with the call on it; final: an answer, or the deadline.
 */
function classify(error: unknown): 'unsent' | 'no-leader' | 'leader-changed' | 'member' | 'transport' | 'final' {
  if (error instanceof DeadlineError) return 'final';
  if (error instanceof H2Error) return error.processed ? 'transport' : 'unsent';
  if (error instanceof GrpcError && error.code === GRPC_UNAVAILABLE) {
    if (/no leader/.test(error.message)) return 'no-leader';
    if (/leader changed/.test(error.message)) return 'leader-changed';
    return 'member';
  }
  return 'final';
}
