// Tests of how the line debugger's worker reaches its main thread (runtime/host/worker/main-thread-link.ts),
// over a real MessageChannel (the test plays the main thread on the other port) and a fake line debugger
// for the synchronous calls of a line stop: a client's request is forwarded as it is and held until
// answered; the worker's own requests go out with negative ids and are answered once (a refusal with its
// code); a feed not read by a line stop is withdrawn, answered
// 'superseded', and its late answer dropped; setBreakpoints parts are merged from the running main thread
// or through the stopped one; what a stopped main thread answers goes to the client, rewritten when asked.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { ProtocolError, type RequestMessage } from '../../../../protocol/rpc';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';
import { MainThreadLink } from '../../../../runtime/host/worker/main-thread-link';

interface Linked {
  link: MainThreadLink;
  /** The main thread's end of the channel. */
  main: MessagePort;
  /** The calls made in the stopped main thread, in order. */
  calls: string[];
  /** What went to the client, in order. */
  toClient: unknown[];
  close(): void;
}

function linked(answer: (expression: string) => unknown = () => null): Linked {
  const { port1, port2 } = new MessageChannel();
  const calls: string[] = [];
  const toClient: unknown[] = [];
  const lineDebugger = {
    callMain: async (expression: string) => {
      calls.push(expression);
      return answer(expression);
    },
  } as unknown as LineDebugger;
  const link = new MainThreadLink(
    port1,
    () => lineDebugger,
    (m) => toClient.push(m),
  );
  return {
    link,
    main: port2,
    calls,
    toClient,
    close: () => {
      port1.close();
      port2.close();
    },
  };
}

/** The next message the main thread's end receives. */
async function received(main: MessagePort): Promise<unknown> {
  const [m] = (await once(main, 'message')) as [unknown];
  return m;
}

async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return { resolved: await p };
  } catch (e) {
    return e instanceof ProtocolError ? { code: e.code, message: e.message } : { error: String(e) };
  }
}

describe("the worker's own requests", () => {
  test('negative ids, answered once, a refusal with its code; anything else is not taken', async () => {
    const l = linked();
    try {
      const first = l.link.ask('writeReplayCopy', { path: '/t' });
      const second = l.link.ask('where', {});
      assert.deepEqual(
        [await received(l.main), await received(l.main)],
        [
          { kind: 'request', id: -1, method: 'writeReplayCopy', params: { path: '/t' } },
          { kind: 'request', id: -2, method: 'where', params: {} },
        ],
      );
      const taken = [
        l.link.take({ kind: 'response', id: -2, ok: false, error: { message: 'no run', code: 'badState' } }),
        l.link.take({ kind: 'response', id: -1, ok: true, result: 7 }),
        l.link.take({ kind: 'response', id: -1, ok: true, result: 8 }),
        l.link.take({ kind: 'response', id: 5, ok: true }),
        l.link.take({ kind: 'event', event: 'progress', body: {} }),
      ];
      assert.deepEqual(taken, [true, true, false, false, false]);
      assert.deepEqual(
        [await outcome(first), await outcome(second)],
        [{ resolved: 7 }, { code: 'badState', message: 'no run' }],
      );
    } finally {
      l.close();
    }
  });

  test("a feed the stopped main thread had not read is withdrawn: 'superseded', its late answer dropped", async () => {
    // The main thread drops request -1 unread; -3 it had read already.
    const l = linked((expression) => expression === 'withdraw(-1)');
    try {
      const feed = l.link.ask('writeRecordingGrowth', {}, true);
      const plain = l.link.ask('where', {});
      const read = l.link.ask('writeReplayCopy', {}, true);
      await l.link.withdrawFeeds();
      assert.deepEqual(l.calls, ['withdraw(-1)', 'withdraw(-3)']);
      assert.deepEqual(await outcome(feed), { code: 'superseded', message: 'the feed was withdrawn at a line stop' });
      assert.equal(l.link.take({ kind: 'response', id: -1, ok: true, result: 'late' }), false);
      assert.equal(l.link.take({ kind: 'response', id: -2, ok: true, result: 'w' }), true);
      assert.equal(l.link.take({ kind: 'response', id: -3, ok: true, result: 'copy' }), true);
      assert.deepEqual([await outcome(plain), await outcome(read)], [{ resolved: 'w' }, { resolved: 'copy' }]);
      // Answered: not withdrawn again.
      l.calls.length = 0;
      await l.link.withdrawFeeds();
      assert.deepEqual(l.calls, []);
    } finally {
      l.close();
    }
  });
});

test("a client's request forwarded: posted as it is, held as forwarded until answered", async () => {
  const l = linked();
  try {
    const request: RequestMessage = { kind: 'request', id: 4, method: 'snapshot', params: {} };
    l.link.forward(request);
    assert.deepEqual(await received(l.main), request);
    assert.deepEqual([...l.link.forwarded], [[4, request]]);
  } finally {
    l.close();
  }
});

describe('setBreakpoints parts and a stopped main thread', () => {
  const part = (id: number): RequestMessage => ({
    kind: 'request',
    id,
    method: 'setBreakpoints',
    params: { file: '/p.ts' },
  });
  const statuses = [{ file: '/p.ts', line: 3, verified: true }];

  test('from the running main thread: posted, its statuses merged; a refusal an Error', async () => {
    const l = linked();
    try {
      const ok = l.link.askMerge(part(11), false);
      const refused = l.link.askMerge(part(12), false);
      assert.deepEqual([await received(l.main), await received(l.main)], [part(11), part(12)]);
      assert.equal(l.link.take({ kind: 'response', id: 11, ok: true, result: { breakpoints: statuses } }), true);
      assert.equal(
        l.link.take({ kind: 'response', id: 12, ok: false, error: { message: 'bad file', code: 'failed' } }),
        true,
      );
      const [merged, error] = [await ok, await refused];
      assert.deepEqual(merged, statuses);
      assert.ok(error instanceof Error);
      assert.equal(error.message, 'bad file');
    } finally {
      l.close();
    }
  });

  test('through the stopped main thread: served by the synchronous call, merged; the rest to the client', async () => {
    const event = { kind: 'event', event: 'output', body: { category: 'log', text: 'x' } };
    const l = linked(() =>
      JSON.stringify([event, { kind: 'response', id: 13, ok: true, result: { breakpoints: statuses } }]),
    );
    try {
      assert.deepEqual(await l.link.askMerge(part(13), true), statuses);
      assert.deepEqual(l.calls, [`serve(${JSON.stringify(JSON.stringify(part(13)))})`]);
      assert.deepEqual(l.toClient, [event]);
    } finally {
      l.close();
    }
  });

  test("a stopped main thread's answer rewritten when asked (its own request's only, kept if the rewrite fails)", async () => {
    const request: RequestMessage = { kind: 'request', id: 21, method: 'snapshot', params: {} };
    const answers = [
      { kind: 'response', id: 21, ok: true, result: 1 },
      { kind: 'response', id: 22, ok: true, result: 1 },
      { kind: 'response', id: 21, ok: false, error: { message: 'no', code: 'failed' } },
    ];
    const l = linked(() => JSON.stringify(answers));
    try {
      await l.link.serveStopped(request, async (result) => (result as number) + 100);
      await l.link.serveStopped(request, async () => {
        throw new Error('rewrite failed');
      });
      assert.deepEqual(l.toClient, [
        { kind: 'response', id: 21, ok: true, result: 101 },
        answers[1],
        answers[2],
        ...answers,
      ]);
    } finally {
      l.close();
    }
  });
});
