// Tests of BreakpointSplit (runtime/host/worker/breakpoint-split.ts) with fakes of its three
// collaborators (the line debugger, the main-thread link, the client's views), each recording what
// it is asked: a client's setBreakpoints is split by line (a `yield` line to the main thread unless
// `yieldLines: 'before'`), answered once, merged in the client's order; a request it cannot split
// goes to the main thread whole; a refusal of the main thread is the client's answer; and when the
// breakpoints were set (for hit conditions) is 'start', the stopped tick, or the main thread's tick.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Breakpoint, BreakpointStatus } from '../../../../protocol/host-protocol';
import type { RequestMessage } from '../../../../protocol/rpc';
import type { BreakpointsSetAt } from '../../../../runtime/inspect/hit-count';
import { BreakpointSplit } from '../../../../runtime/host/worker/breakpoint-split';
import type { ClientViews } from '../../../../runtime/host/worker/client-views';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';
import type { MainThreadLink } from '../../../../runtime/host/worker/main-thread-link';

const dir = mkdtempSync(join(tmpdir(), 'coroscope-breakpoint-split-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const FILE = join(dir, 'prog.ts');
// Line 2 and 4 suspend (`yield`); 1 and 3 do not.
writeFileSync(FILE, ['const a = 1;', '  yield* sleep(1);', 'log(a);', '  const b = yield* q.get();'].join('\n'));

/** The fakes' record of what each collaborator was asked, in order. */
interface Asked {
  log: string[];
  lineSets: Array<{ file: string; lines: number[]; setAt: BreakpointsSetAt }>;
  mainSets: Array<{ id: number; params: unknown; stopped: boolean }>;
  answers: Array<{ id: number; result: unknown }>;
  refusals: Array<{ id: number; error: unknown }>;
}

interface Options {
  stopped?: { tick: number } | null;
  run?: { id: number | null; finished: boolean };
  mainAnswer?: (breakpoints: Breakpoint[]) => BreakpointStatus[] | Error;
  snapshotTick?: number;
}

function split(options: Options = {}): { split: BreakpointSplit; asked: Asked } {
  const asked: Asked = { log: [], lineSets: [], mainSets: [], answers: [], refusals: [] };
  const stopped = options.stopped ?? null;
  const lineDebugger = {
    isStopped: () => stopped !== null,
    tick: () => stopped?.tick ?? -1,
    armedBreakpoints: () => [],
    setLineBreakpoints: (
      file: string,
      breakpoints: readonly Breakpoint[],
      _reuse: unknown,
      setAt: BreakpointsSetAt,
    ): Promise<BreakpointStatus[]> => {
      asked.lineSets.push({ file, lines: breakpoints.map((b) => b.line), setAt });
      return Promise.resolve(breakpoints.map((b) => ({ file, line: b.line, verified: true, message: 'v8' })));
    },
  };
  const main = {
    forward: (m: RequestMessage) => asked.log.push(`forward ${m.id}`),
    serveStopped: (m: RequestMessage) => (asked.log.push(`serveStopped ${m.id}`), Promise.resolve()),
    ask: (method: string) => (asked.log.push(`ask ${method}`), Promise.resolve({ tick: options.snapshotTick ?? 0 })),
    askMerge: (sub: RequestMessage, isStopped: boolean): Promise<BreakpointStatus[] | Error> => {
      asked.mainSets.push({ id: sub.id, params: sub.params, stopped: isStopped });
      const bps = (sub.params as { breakpoints: Breakpoint[] }).breakpoints;
      const answer =
        options.mainAnswer ?? ((b) => b.map((x) => ({ file: x.file, line: x.line, verified: true, message: 'loop' })));
      return Promise.resolve(answer(bps));
    },
  };
  const client = {
    respond: (id: number, result: unknown) => asked.answers.push({ id, result }),
    refuse: (id: number, error: unknown) => asked.refusals.push({ id, error }),
  };
  const run = options.run ?? { id: 1, finished: false };
  return {
    split: new BreakpointSplit(
      () => lineDebugger as unknown as LineDebugger,
      main as unknown as MainThreadLink,
      client as unknown as ClientViews,
      () => run,
    ),
    asked,
  };
}

function request(id: number, params: unknown): RequestMessage {
  return { kind: 'request', id, method: 'setBreakpoints', params };
}

const bp = (line: number, more: Partial<Breakpoint> = {}): Breakpoint => ({ file: FILE, line, ...more });

describe('splitting by line', () => {
  test('yield lines go to the main thread, the others to V8; one answer in the client order', async () => {
    const { split: s, asked } = split();
    await s.set(request(7, { file: FILE, breakpoints: [bp(4), bp(1), bp(2), bp(3)] }));
    assert.deepEqual(asked.lineSets, [{ file: FILE, lines: [1, 3], setAt: 'start' }]);
    assert.deepEqual(asked.mainSets, [{ id: 7, params: { file: FILE, breakpoints: [bp(4), bp(2)] }, stopped: false }]);
    assert.deepEqual(asked.answers, [
      {
        id: 7,
        result: {
          breakpoints: [
            { file: FILE, line: 4, verified: true, message: 'loop' },
            { file: FILE, line: 1, verified: true, message: 'v8' },
            { file: FILE, line: 2, verified: true, message: 'loop' },
            { file: FILE, line: 3, verified: true, message: 'v8' },
          ],
        },
      },
    ]);
    assert.deepEqual(
      s.armed().map((a) => [a.line, a.atSuspension]),
      [
        [4, true],
        [2, true],
      ],
      'the loop breakpoints are armed for searches of the past',
    );
  });

  test("yieldLines 'before': every line is a V8 breakpoint, the main thread gets none", async () => {
    const { split: s, asked } = split();
    await s.set(request(3, { file: FILE, breakpoints: [bp(2), bp(3)], yieldLines: 'before' }));
    assert.deepEqual(asked.lineSets, [{ file: FILE, lines: [2, 3], setAt: 'start' }]);
    assert.deepEqual(asked.mainSets, [{ id: 3, params: { file: FILE, breakpoints: [] }, stopped: false }]);
    assert.deepEqual(s.armed(), []);
  });

  test('a logpoint on a yield line is a V8 logpoint: the loop cannot print, and a logpoint never stops', async () => {
    const { split: s, asked } = split();
    const logpoint = bp(2, { logMessage: 'at {a}' });
    await s.set(request(5, { file: FILE, breakpoints: [logpoint, bp(4)] }));
    assert.deepEqual(asked.lineSets, [{ file: FILE, lines: [2], setAt: 'start' }]);
    assert.deepEqual(asked.mainSets, [{ id: 5, params: { file: FILE, breakpoints: [bp(4)] }, stopped: false }]);
    assert.deepEqual(
      (asked.answers[0]?.result as { breakpoints: BreakpointStatus[] }).breakpoints.map((b) => b.message),
      ['v8', 'loop'],
    );
    assert.deepEqual(
      s.armed().map((a) => a.line),
      [4],
      'only the loop breakpoint is armed as one',
    );
  });

  test('a file the worker cannot read goes to the main thread whole (its checks say why)', async () => {
    const missing = join(dir, 'missing.ts');
    const { split: s, asked } = split();
    await s.set(request(4, { file: missing, breakpoints: [{ file: missing, line: 1 }] }));
    assert.deepEqual(asked.lineSets, [{ file: missing, lines: [], setAt: 'start' }]);
    assert.deepEqual(asked.mainSets[0]?.params, { file: missing, breakpoints: [{ file: missing, line: 1 }] });
  });

  test('a request with no file or no list is passed on whole: forwarded, or served at a line stop', async () => {
    const running = split();
    await running.split.set(request(5, { breakpoints: [] }));
    assert.deepEqual(running.asked.log, ['forward 5']);
    const stopped = split({ stopped: { tick: 9 } });
    await stopped.split.set(request(6, { file: FILE }));
    assert.deepEqual(stopped.asked.log, ['serveStopped 6']);
    assert.deepEqual([...running.asked.answers, ...stopped.asked.answers, ...stopped.asked.lineSets], []);
  });

  test("the main thread's refusal is the answer, and nothing is armed", async () => {
    const refusal = new Error('setBreakpoints: no such file');
    const { split: s, asked } = split({ mainAnswer: () => refusal });
    await s.set(request(8, { file: FILE, breakpoints: [bp(2)] }));
    assert.deepEqual(asked.refusals, [{ id: 8, error: refusal }]);
    assert.deepEqual(asked.answers, []);
    assert.deepEqual(s.armed(), []);
  });
});

describe('when the breakpoints count hits from', () => {
  const counted = bp(3, { hitCondition: '>= 2' });

  test('without a hit condition, before a run or after it: from the start, nothing asked', async () => {
    for (const run of [
      { id: 1, finished: false },
      { id: null, finished: false },
      { id: 1, finished: true },
    ]) {
      const plain = run.id === 1 && !run.finished;
      const { split: s, asked } = split({ run });
      await s.set(request(1, { file: FILE, breakpoints: [plain ? bp(3) : counted] }));
      assert.deepEqual(asked.lineSets[0]?.setAt, 'start', JSON.stringify(run));
      assert.deepEqual(asked.log, []);
    }
  });

  test('at a line stop: its tick', async () => {
    const { split: s, asked } = split({ stopped: { tick: 12 } });
    await s.set(request(1, { file: FILE, breakpoints: [counted] }));
    assert.deepEqual(asked.lineSets[0]?.setAt, { tick: 12 });
    assert.deepEqual(asked.mainSets[0]?.stopped, true);
  });

  test("while the run goes: the tick of the main thread's snapshot", async () => {
    const { split: s, asked } = split({ snapshotTick: 40 });
    await s.set(request(1, { file: FILE, breakpoints: [counted] }));
    const setAt = asked.lineSets[0]?.setAt;
    assert.ok(typeof setAt === 'object' && 'telling' in setAt, `setAt ${JSON.stringify(setAt)}`);
    assert.equal(await setAt.telling, 40);
    assert.deepEqual(asked.log, ['ask snapshot']);
  });
});
