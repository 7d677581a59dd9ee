// Tests of protocol/rpc.ts on its own: parseWireMessage's narrowing (and its reasons), and
// RpcEndpoint's contract over in-memory transports: every request gets exactly one response
// (a result, a handler's error with its code, unknownMethod), pending requests fail when the
// transport closes, nothing is sent after close, events reach their listeners in order, and
// receiveNow answers a request before it returns (notWhileStopped for an asynchronous handler).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ProtocolError,
  RemoteError,
  RpcEndpoint,
  parseWireMessage,
  type RequestMessage,
  type ResponseMessage,
  type Transport,
} from '../../protocol/rpc';

/** A transport the test drives: it records what the endpoint sends and delivers what the test gives. */
class ScriptedTransport implements Transport {
  readonly sent: unknown[] = [];
  /** When set, send() throws it (a channel that refuses a write). */
  sendFailure: Error | null = null;
  private receive: (message: unknown) => void = () => undefined;
  private closed: (reason: string) => void = () => undefined;

  send(message: unknown): void {
    if (this.sendFailure !== null) throw this.sendFailure;
    this.sent.push(message);
  }
  onMessage(receive: (message: unknown) => void): void {
    this.receive = receive;
  }
  onClose(closed: (reason: string) => void): void {
    this.closed = closed;
  }
  deliver(message: unknown): void {
    this.receive(message);
  }
  close(reason: string): void {
    this.closed(reason);
  }
}

/** Two transports wired to each other; a message arrives one microtask after it is sent, as over a channel. */
function linkedPair(): [Transport, Transport] {
  const receivers: [Array<(m: unknown) => void>, Array<(m: unknown) => void>] = [[], []];
  const side = (mine: 0 | 1): Transport => ({
    send: (message) => {
      const copy: unknown = JSON.parse(JSON.stringify(message));
      queueMicrotask(() => {
        for (const r of receivers[mine === 0 ? 1 : 0]) r(copy);
      });
    },
    onMessage: (receive) => receivers[mine].push(receive),
    onClose: () => undefined,
  });
  return [side(0), side(1)];
}

interface CalcMethods {
  add: { params: { a: number; b: number }; result: number };
  fail: { params: null; result: never };
  slow: { params: { ms: number }; result: string };
}
interface NoMethods {}
interface CalcEvents {
  progress: { done: number };
  note: string;
}
interface NoEvents {}

type Caller = RpcEndpoint<CalcMethods, NoMethods, CalcEvents, NoEvents>;
type Server = RpcEndpoint<NoMethods, CalcMethods, NoEvents, CalcEvents>;

/** Resolves after every queued microtask and one macrotask turn (an async handler's answer is sent by then). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The rejection of `p`, which must reject. */
async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail('the promise resolved');
}

/** Responses in id order (the contract pairs them by id; a handler that throws at once answers first). */
function byId(sent: readonly unknown[]): unknown[] {
  return [...sent].sort((x, y) => (x as ResponseMessage).id - (y as ResponseMessage).id);
}

function remote(e: unknown): { name: string; message: string; code: string } {
  assert.ok(e instanceof RemoteError, `a RemoteError, not ${String(e)}`);
  return { name: e.name, message: e.message, code: e.code };
}

describe('parseWireMessage', () => {
  test('narrows the three kinds to their wire shapes, dropping unknown fields', () => {
    assert.deepEqual(parseWireMessage({ kind: 'request', id: 3, method: 'add', params: { a: 1 }, extra: true }), {
      kind: 'request',
      id: 3,
      method: 'add',
      params: { a: 1 },
    });
    assert.deepEqual(parseWireMessage({ kind: 'response', id: 3, ok: true, result: 7 }), {
      kind: 'response',
      id: 3,
      ok: true,
      result: 7,
      error: undefined,
    });
    assert.deepEqual(parseWireMessage({ kind: 'event', event: 'note', body: 'hi' }), {
      kind: 'event',
      event: 'note',
      body: 'hi',
    });
  });

  test("a response's error fields become strings, with 'error' for a missing one", () => {
    assert.deepEqual(parseWireMessage({ kind: 'response', id: 1, ok: false, error: { message: 42 } }), {
      kind: 'response',
      id: 1,
      ok: false,
      result: undefined,
      error: { message: '42', code: 'error' },
    });
    assert.deepEqual(parseWireMessage({ kind: 'response', id: 1, ok: false, error: { code: 'x' } }), {
      kind: 'response',
      id: 1,
      ok: false,
      result: undefined,
      error: { message: 'error', code: 'x' },
    });
    // An error that is not an object is no error record at all.
    const fromString = parseWireMessage({ kind: 'response', id: 1, ok: false, error: 'boom' });
    assert.ok(typeof fromString === 'object' && fromString.kind === 'response');
    assert.equal(fromString.error, undefined);
  });

  test('a malformed value gives the reason it is not a message', () => {
    assert.deepEqual(
      [
        parseWireMessage(null),
        parseWireMessage('request'),
        parseWireMessage({ kind: 'request', id: '1', method: 'add' }),
        parseWireMessage({ kind: 'request', id: 1 }),
        parseWireMessage({ kind: 'response', id: 1 }),
        parseWireMessage({ kind: 'response', ok: true }),
        parseWireMessage({ kind: 'event', body: 1 }),
        parseWireMessage({ kind: 'notify' }),
        parseWireMessage({}),
      ],
      [
        'not an object',
        'not an object',
        'request without a numeric id and a method',
        'request without a numeric id and a method',
        'response without id/ok',
        'response without id/ok',
        'event without a name',
        'unknown message kind "notify"',
        'unknown message kind undefined',
      ],
    );
  });
});

describe('RpcEndpoint requests', () => {
  test('a request is answered with the handler’s result across a linked pair', async () => {
    const [a, b] = linkedPair();
    const caller: Caller = new RpcEndpoint(a);
    const server: Server = new RpcEndpoint(b);
    server.handle('add', (params) => {
      const p = params as { a: number; b: number };
      return p.a + p.b;
    });
    server.handle('slow', async (params) => {
      await new Promise((r) => setTimeout(r, (params as { ms: number }).ms));
      return 'late';
    });
    assert.deepEqual(await Promise.all([caller.request('slow', { ms: 5 }), caller.request('add', { a: 2, b: 3 })]), [
      'late',
      5,
    ]);
  });

  test('requests carry increasing ids and each response settles the request with its id', async () => {
    const transport = new ScriptedTransport();
    const caller: Caller = new RpcEndpoint(transport);
    const first = caller.request('add', { a: 1, b: 1 });
    const second = caller.request('slow', { ms: 0 });
    assert.deepEqual(transport.sent, [
      { kind: 'request', id: 1, method: 'add', params: { a: 1, b: 1 } },
      { kind: 'request', id: 2, method: 'slow', params: { ms: 0 } },
    ] satisfies RequestMessage[]);
    // Answered out of order: each goes to its own request.
    transport.deliver({ kind: 'response', id: 2, ok: true, result: 'two' } satisfies ResponseMessage);
    transport.deliver({ kind: 'response', id: 1, ok: true, result: 2 } satisfies ResponseMessage);
    assert.deepEqual(await Promise.all([first, second]), [2, 'two']);
  });

  test('a failed response rejects with a RemoteError carrying its message and code', async () => {
    const transport = new ScriptedTransport();
    const caller: Caller = new RpcEndpoint(transport);
    const coded = caller.request('fail', null);
    const bare = caller.request('fail', null);
    transport.deliver({ kind: 'response', id: 1, ok: false, error: { message: 'no', code: 'badRequest' } });
    transport.deliver({ kind: 'response', id: 2, ok: false });
    assert.deepEqual(remote(await rejectionOf(coded)), { name: 'RemoteError', message: 'no', code: 'badRequest' });
    assert.deepEqual(remote(await rejectionOf(bare)), {
      name: 'RemoteError',
      message: 'request failed',
      code: 'error',
    });
  });

  test('a transport that refuses the send rejects the request with its error and forgets it', async () => {
    const transport = new ScriptedTransport();
    const caller: Caller = new RpcEndpoint(transport);
    const problems: string[] = [];
    caller.onProtocolError = (p) => problems.push(p);
    const refused = new Error('channel closed');
    transport.sendFailure = refused;
    assert.equal(await rejectionOf(caller.request('add', { a: 1, b: 2 })), refused);
    // Its id is no longer pending: a late answer to it is a protocol problem, not a resolution.
    transport.deliver({ kind: 'response', id: 1, ok: true, result: 3 });
    assert.deepEqual(problems, ['response to unknown request 1']);
  });
});

describe('RpcEndpoint serving', () => {
  /** A server over a scripted transport, with the calc handlers, and the responses it sent. */
  function scriptedServer(): { transport: ScriptedTransport; server: Server } {
    const transport = new ScriptedTransport();
    const server: Server = new RpcEndpoint(transport);
    server.handle('add', (params) => {
      const p = params as { a: number; b: number };
      if (typeof p.a !== 'number') throw new ProtocolError('a is not a number', 'badParams');
      return p.a + p.b;
    });
    server.handle('fail', () => {
      throw new Error('it broke');
    });
    return { transport, server };
  }

  test('each request gets exactly one response: result, ProtocolError code, failed, unknownMethod', async () => {
    const { transport } = scriptedServer();
    transport.deliver({ kind: 'request', id: 1, method: 'add', params: { a: 2, b: 5 } });
    transport.deliver({ kind: 'request', id: 2, method: 'add', params: { a: 'x', b: 5 } });
    transport.deliver({ kind: 'request', id: 3, method: 'fail', params: null });
    transport.deliver({ kind: 'request', id: 4, method: 'subtract', params: null });
    await settle();
    assert.deepEqual(byId(transport.sent), [
      { kind: 'response', id: 1, ok: true, result: 7 },
      { kind: 'response', id: 2, ok: false, error: { message: 'a is not a number', code: 'badParams' } },
      { kind: 'response', id: 3, ok: false, error: { message: 'it broke', code: 'failed' } },
      { kind: 'response', id: 4, ok: false, error: { message: 'unknown method "subtract"', code: 'unknownMethod' } },
    ] satisfies ResponseMessage[]);
  });

  test("a rejected promise keeps its ProtocolError's code; a thrown non-Error answers failed", async () => {
    const { transport, server } = scriptedServer();
    server.handle('slow', async () => {
      throw new ProtocolError('too slow');
    });
    server.handle('fail', () => {
      throw 'plain string';
    });
    transport.deliver({ kind: 'request', id: 1, method: 'slow', params: { ms: 1 } });
    transport.deliver({ kind: 'request', id: 2, method: 'fail', params: null });
    await settle();
    assert.deepEqual(byId(transport.sent), [
      { kind: 'response', id: 1, ok: false, error: { message: 'too slow', code: 'badRequest' } },
      { kind: 'response', id: 2, ok: false, error: { message: 'plain string', code: 'failed' } },
    ]);
  });

  test('a malformed message is reported to onProtocolError and answered with nothing', async () => {
    const { transport, server } = scriptedServer();
    const problems: string[] = [];
    server.onProtocolError = (p) => problems.push(p);
    transport.deliver('hello');
    transport.deliver({ kind: 'request', method: 'add' });
    transport.deliver({ kind: 'response', id: 9, ok: true });
    await settle();
    assert.deepEqual(problems, [
      'malformed message: not an object',
      'malformed message: request without a numeric id and a method',
      'response to unknown request 9',
    ]);
    assert.deepEqual(transport.sent, []);
  });
});

describe('RpcEndpoint closing', () => {
  test('the transport closing fails every pending request with code closed, naming its method', async () => {
    const transport = new ScriptedTransport();
    const caller: Caller = new RpcEndpoint(transport);
    const add = caller.request('add', { a: 1, b: 2 });
    const slow = caller.request('slow', { ms: 1 });
    assert.equal(caller.isClosed(), false);
    transport.close('peer exited');
    assert.equal(caller.isClosed(), true);
    assert.deepEqual(
      [remote(await rejectionOf(add)), remote(await rejectionOf(slow))],
      [
        { name: 'RemoteError', message: 'connection closed while waiting for add: peer exited', code: 'closed' },
        { name: 'RemoteError', message: 'connection closed while waiting for slow: peer exited', code: 'closed' },
      ],
    );
  });

  test('after close a request rejects at once and neither requests, events nor responses are sent', async () => {
    const transport = new ScriptedTransport();
    const endpoint = new RpcEndpoint<CalcMethods, CalcMethods, NoEvents, CalcEvents>(transport);
    let releaseHandler: (v: number) => void = () => undefined;
    endpoint.handle('add', () => new Promise<number>((resolve) => (releaseHandler = resolve)));
    transport.deliver({ kind: 'request', id: 1, method: 'add', params: { a: 1, b: 1 } });
    endpoint.close('shutting down');
    // A second close keeps the first reason.
    endpoint.close('again');
    releaseHandler(2);
    await settle();
    endpoint.emit('note', 'ignored');
    assert.deepEqual(remote(await rejectionOf(endpoint.request('add', { a: 1, b: 1 }))), {
      name: 'RemoteError',
      message: 'connection closed: shutting down',
      code: 'closed',
    });
    assert.deepEqual(transport.sent, []);
  });
});

describe('RpcEndpoint events', () => {
  test('an event reaches its listeners in registration order until they unsubscribe', () => {
    const transport = new ScriptedTransport();
    const caller: Caller = new RpcEndpoint(transport);
    const log: string[] = [];
    const offFirst = caller.on('progress', (body) => log.push(`first ${body.done}`));
    caller.on('progress', (body) => log.push(`second ${body.done}`));
    caller.on('note', (body) => log.push(`note ${body}`));
    transport.deliver({ kind: 'event', event: 'progress', body: { done: 1 } });
    transport.deliver({ kind: 'event', event: 'note', body: 'n' });
    offFirst();
    transport.deliver({ kind: 'event', event: 'progress', body: { done: 2 } });
    transport.deliver({ kind: 'event', event: 'unheard', body: null });
    assert.deepEqual(log, ['first 1', 'second 1', 'note n', 'second 2']);
  });

  test('emit sends the event wire shape', () => {
    const transport = new ScriptedTransport();
    const server: Server = new RpcEndpoint(transport);
    server.emit('progress', { done: 3 });
    assert.deepEqual(transport.sent, [{ kind: 'event', event: 'progress', body: { done: 3 } }]);
  });
});

describe('RpcEndpoint.receiveNow', () => {
  test('a synchronous handler is answered before receiveNow returns', () => {
    const transport = new ScriptedTransport();
    const server: Server = new RpcEndpoint(transport);
    server.handle('add', (params) => (params as { a: number; b: number }).a * 10);
    server.handle('fail', () => {
      throw new ProtocolError('stopped', 'wrongState');
    });
    server.receiveNow({ kind: 'request', id: 1, method: 'add', params: { a: 4, b: 0 } });
    server.receiveNow({ kind: 'request', id: 2, method: 'fail', params: null });
    server.receiveNow({ kind: 'request', id: 3, method: 'nope', params: null });
    assert.deepEqual(transport.sent, [
      { kind: 'response', id: 1, ok: true, result: 40 },
      { kind: 'response', id: 2, ok: false, error: { message: 'stopped', code: 'wrongState' } },
      { kind: 'response', id: 3, ok: false, error: { message: 'unknown method "nope"', code: 'unknownMethod' } },
    ]);
  });

  test('a handler returning a promise is answered notWhileStopped; its later rejection stays quiet', async () => {
    const transport = new ScriptedTransport();
    const server: Server = new RpcEndpoint(transport);
    const started: number[] = [];
    server.handle('slow', async (params) => {
      started.push((params as { ms: number }).ms);
      throw new Error('rejected after the answer');
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      server.receiveNow({ kind: 'request', id: 7, method: 'slow', params: { ms: 3 } });
      assert.deepEqual(transport.sent, [
        {
          kind: 'response',
          id: 7,
          ok: false,
          error: { message: 'slow cannot be answered while the program is stopped on a line', code: 'notWhileStopped' },
        },
      ]);
      assert.deepEqual(started, [3]);
      await settle();
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  test('a response or event given to receiveNow is handled as by the transport', async () => {
    const transport = new ScriptedTransport();
    const caller: Caller = new RpcEndpoint(transport);
    const notes: string[] = [];
    caller.on('note', (n) => notes.push(n));
    const pending = caller.request('add', { a: 1, b: 1 });
    caller.receiveNow({ kind: 'event', event: 'note', body: 'now' });
    caller.receiveNow({ kind: 'response', id: 1, ok: true, result: 2 });
    assert.equal(await pending, 2);
    assert.deepEqual(notes, ['now']);
  });

  test('after close receiveNow runs the handler but sends nothing', () => {
    const transport = new ScriptedTransport();
    const server: Server = new RpcEndpoint(transport);
    let calls = 0;
    server.handle('add', () => ++calls);
    transport.close('gone');
    server.receiveNow({ kind: 'request', id: 1, method: 'add', params: { a: 0, b: 0 } });
    assert.equal(calls, 1);
    assert.deepEqual(transport.sent, []);
  });
});
