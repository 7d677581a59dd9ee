// A small typed request/reply helper shared by every side of Coroscope's protocols (the
// runtime host, the extension, the debug adapter, the webview). It runs over any transport
// that can send a JSON-able value and deliver incoming ones: a child process IPC channel,
// a webview's postMessage, a stdio framing.
//
// Wire shapes: {kind:'request', id, method, params} → {kind:'response', id, ok, result|error};
// {kind:'event', event, body} one way. Incoming messages are `unknown` until narrowed here;
// a malformed one is reported, never trusted.
//
// Invariants: every request gets exactly one response (a handler that throws answers with
// an error; an unknown method too); pending requests fail when the transport closes.

export interface Transport {
  send(message: unknown): void;
  /** Registers the receiver of incoming messages. */
  onMessage(receive: (message: unknown) => void): void;
  /** Registers the callback for the other side going away. */
  onClose(closed: (reason: string) => void): void;
}

/**
 * A method table: method name → params and result types. Constrained by a mapped type over
 * the table's own keys (not an index signature), so an interface without one qualifies and
 * `request('snapshto', ...)` on it is a type error.
 */
export type MethodTable<M> = { [K in keyof M]: { params: unknown; result: unknown } };
/** An event table: event name → body type (any interface qualifies; its keys are the names). */
export type EventTable<E> = { [K in keyof E]: unknown };

export interface RequestMessage {
  kind: 'request';
  id: number;
  method: string;
  params: unknown;
}
export interface ResponseMessage {
  kind: 'response';
  id: number;
  ok: boolean;
  result?: unknown;
  error?: { message: string; code: string };
}
export interface EventMessage {
  kind: 'event';
  event: string;
  body: unknown;
}
export type WireMessage = RequestMessage | ResponseMessage | EventMessage;

/** An error answered by the other side. */
export class RemoteError extends Error {
  override readonly name = 'RemoteError';
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

/** Narrows an incoming value to a wire message, or returns a reason why it is not one. */
export function parseWireMessage(value: unknown): WireMessage | string {
  if (typeof value !== 'object' || value === null) return 'not an object';
  const m = value as Record<string, unknown>;
  switch (m.kind) {
    case 'request':
      if (typeof m.id !== 'number' || typeof m.method !== 'string') return 'request without a numeric id and a method';
      return { kind: 'request', id: m.id, method: m.method, params: m.params };
    case 'response': {
      if (typeof m.id !== 'number' || typeof m.ok !== 'boolean') return 'response without id/ok';
      const err = m.error as Record<string, unknown> | undefined;
      return {
        kind: 'response',
        id: m.id,
        ok: m.ok,
        result: m.result,
        error:
          err && typeof err === 'object'
            ? { message: String(err.message ?? 'error'), code: String(err.code ?? 'error') }
            : undefined,
      };
    }
    case 'event':
      if (typeof m.event !== 'string') return 'event without a name';
      return { kind: 'event', event: m.event, body: m.body };
    default:
      return `unknown message kind ${JSON.stringify(m.kind)}`;
  }
}

type Handler = (params: unknown) => unknown | Promise<unknown>;

/**
 * One side of a connection. `Out` are the methods this side calls, `In` those it serves;
 * `OutEvents` the events it receives, `InEvents` those it emits.
 */
export class RpcEndpoint<
  Out extends MethodTable<Out>,
  In extends MethodTable<In>,
  OutEvents extends EventTable<OutEvents>,
  InEvents extends EventTable<InEvents>,
> {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void; method: string }
  >();
  private readonly handlers = new Map<string, Handler>();
  private readonly eventListeners = new Map<string, Array<(body: unknown) => void>>();
  private closed: string | null = null;
  /** Receives malformed messages and other protocol problems. */
  onProtocolError: (problem: string) => void = () => undefined;

  constructor(private readonly transport: Transport) {
    transport.onMessage((m) => this.receive(m));
    transport.onClose((reason) => this.close(reason));
  }

  /** Calls `method` on the other side. Rejects with RemoteError or when the connection closes. */
  request<M extends keyof Out & string>(method: M, params: Out[M]['params']): Promise<Out[M]['result']> {
    if (this.closed !== null) return Promise.reject(new RemoteError(`connection closed: ${this.closed}`, 'closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method });
      try {
        this.transport.send({ kind: 'request', id, method, params } satisfies RequestMessage);
      } catch (e) {
        this.pending.delete(id);
        reject(e);
      }
    });
  }

  /** Serves `method`; the handler's value (or promise) is the result, a throw the error. */
  handle<M extends keyof In & string>(
    method: M,
    handler: (params: unknown) => In[M]['result'] | Promise<In[M]['result']>,
  ): void {
    this.handlers.set(method, handler);
  }

  /** Emits an event to the other side. */
  emit<E extends keyof InEvents & string>(event: E, body: InEvents[E]): void {
    if (this.closed !== null) return;
    this.transport.send({ kind: 'event', event, body } satisfies EventMessage);
  }

  /** Listens to an event from the other side. The body is typed by the table but unchecked: narrow what you rely on. */
  on<E extends keyof OutEvents & string>(event: E, listener: (body: OutEvents[E]) => void): () => void {
    const list = this.eventListeners.get(event) ?? [];
    list.push(listener as (body: unknown) => void);
    this.eventListeners.set(event, list);
    return () => {
      const l = this.eventListeners.get(event);
      if (l)
        this.eventListeners.set(
          event,
          l.filter((x) => x !== listener),
        );
    };
  }

  isClosed(): boolean {
    return this.closed !== null;
  }

  close(reason: string): void {
    if (this.closed !== null) return;
    this.closed = reason;
    for (const [, p] of this.pending)
      p.reject(new RemoteError(`connection closed while waiting for ${p.method}: ${reason}`, 'closed'));
    this.pending.clear();
  }

  private receive(value: unknown): void {
    const m = parseWireMessage(value);
    if (typeof m === 'string') {
      this.onProtocolError(`malformed message: ${m}`);
      return;
    }
    if (m.kind === 'response') {
      const p = this.pending.get(m.id);
      if (p === undefined) {
        this.onProtocolError(`response to unknown request ${m.id}`);
        return;
      }
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new RemoteError(m.error?.message ?? 'request failed', m.error?.code ?? 'error'));
    } else if (m.kind === 'event') {
      for (const l of this.eventListeners.get(m.event) ?? []) l(m.body);
    } else {
      void this.serve(m);
    }
  }

  /**
   * Serves one incoming message synchronously (the host's main thread while it is stopped on
   * a line: no promise settles then). A request whose handler returns a promise is answered
   * with the error code 'notWhileStopped' (its handler has started, so only read-only
   * handlers should come here: they are synchronous).
   */
  receiveNow(value: unknown): void {
    const m = parseWireMessage(value);
    if (typeof m === 'string' || m.kind !== 'request') {
      this.receive(value);
      return;
    }
    const handler = this.handlers.get(m.method);
    let response: ResponseMessage;
    if (handler === undefined) {
      response = {
        kind: 'response',
        id: m.id,
        ok: false,
        error: { message: `unknown method ${JSON.stringify(m.method)}`, code: 'unknownMethod' },
      };
    } else {
      try {
        const result = handler(m.params);
        if (result instanceof Promise) {
          result.catch(() => undefined);
          response = {
            kind: 'response',
            id: m.id,
            ok: false,
            error: {
              message: `${m.method} cannot be answered while the program is stopped on a line`,
              code: 'notWhileStopped',
            },
          };
        } else {
          response = { kind: 'response', id: m.id, ok: true, result };
        }
      } catch (e) {
        const code = e instanceof ProtocolError ? e.code : 'failed';
        response = {
          kind: 'response',
          id: m.id,
          ok: false,
          error: { message: e instanceof Error ? e.message : String(e), code },
        };
      }
    }
    if (this.closed === null) this.transport.send(response);
  }

  private async serve(m: RequestMessage): Promise<void> {
    const handler = this.handlers.get(m.method);
    let response: ResponseMessage;
    if (handler === undefined) {
      response = {
        kind: 'response',
        id: m.id,
        ok: false,
        error: { message: `unknown method ${JSON.stringify(m.method)}`, code: 'unknownMethod' },
      };
    } else {
      try {
        response = { kind: 'response', id: m.id, ok: true, result: await handler(m.params) };
      } catch (e) {
        const code = e instanceof ProtocolError ? e.code : 'failed';
        response = {
          kind: 'response',
          id: m.id,
          ok: false,
          error: { message: e instanceof Error ? e.message : String(e), code },
        };
      }
    }
    if (this.closed === null) this.transport.send(response);
  }
}

/** Thrown by a handler for a request it cannot serve (bad params, wrong state). */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  readonly code: string;
  constructor(message: string, code = 'badRequest') {
    super(message);
    this.code = code;
  }
}
