// Tests of ReplayHosts (runtime/host/worker/replay-hosts.ts) with fakes of the worker's pieces it is
// given (the line debugger, the main-thread link, the past view), each recording what it is asked: the
// stop's replay host is refused, with a protocol error's code and words, when there is no stop, the
// stop is in no task, this host cannot start one, or the main thread refuses or fails to write the
// recording; the recording's file is removed whatever the outcome; a refused use does not hold up the
// next; a process that exits before its hello is a failed start (a real fork of a script that exits);
// and what a new run and a run's end set and drop. A stop's past opened while the live thread stepped on to
// another stop is of the stop then (a real fork of the stand-in replay host, fake-line-replay-host.mjs). A scan
// beside the stop (besideStop) gets a host of its own over the stop's copy, closed after; the stop's is untouched.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { LineStopPrint } from '../../../../protocol/host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';
import type { HostStart, LineReplayHost } from '../../../../runtime/host/worker/line-replay-host';
import type { MainThreadLink } from '../../../../runtime/host/worker/main-thread-link';
import type { PastView } from '../../../../runtime/host/worker/past-view';
import { ReplayHosts } from '../../../../runtime/host/worker/replay-hosts';
import { ROOT } from '../host-client';
import type { StopFrame } from '../../../../runtime/host/worker/stop-place';

const dir = mkdtempSync(join(tmpdir(), 'coroscope-replay-hosts-'));
after(() => rmSync(dir, { recursive: true, force: true }));
/** A "host" that exits at once (a line replay host that never says hello), counting its starts in FORKS. */
const EXITS = join(dir, 'exits.js');
const FORKS = join(dir, 'forks');
writeFileSync(EXITS, `require('node:fs').appendFileSync(${JSON.stringify(FORKS)}, 'x');\nprocess.exit(0);\n`);

/** The stand-in line replay host (it says hello and answers an open). */
const FAKE = join(ROOT, 'test', 'runtime', 'host', 'worker', 'fake-line-replay-host.mjs');

const PRINT: LineStopPrint = { frames: [], locations: [] } as unknown as LineStopPrint;

interface Stop {
  taskId: number | null;
  tick: number;
  frames?: StopFrame[];
}

interface Asked {
  /** The main thread's calls in the stopped frame, in order (the recording's path replaced by `<path>`). */
  main: string[];
  /** The paths the main thread was asked to write to. */
  paths: string[];
  /** The past view's calls, in order. */
  view: string[];
}

function hosts(
  stop: Stop | null,
  options: { hostStart?: HostStart | null; written?: (path: string) => unknown | Promise<unknown> } = {},
): { hosts: ReplayHosts; asked: Asked } {
  const asked: Asked = { main: [], paths: [], view: [] };
  const lineDebugger = {
    isStopped: () => stop !== null,
    stopPrint: async () => ({ taskId: stop?.taskId ?? null, tick: stop?.tick ?? -1, print: PRINT }),
    stopFrames: () => stop?.frames ?? [],
    callMain: async (expression: string) => {
      const path = /^writeMidTick\((".*")\)$/.exec(expression)?.[1];
      if (path === undefined) throw new Error(`unexpected ${expression}`);
      const file = JSON.parse(path) as string;
      asked.paths.push(file);
      asked.main.push('writeMidTick(<path>)');
      // The main thread writes the file, then answers.
      writeFileSync(file, 'recording');
      return (await options.written?.(file)) ?? null;
    },
  } as unknown as LineDebugger;
  const main = {
    ask: async (method: string) => {
      throw new Error(`unexpected main-thread ask ${method}`);
    },
  } as unknown as MainThreadLink;
  const view = {
    drop: (role: string) => asked.view.push(`drop ${role}`),
    leaveTick: () => asked.view.push('leaveTick'),
    move: async () => asked.view.push('move'),
  } as unknown as PastView;
  const hostStart = options.hostStart === undefined ? { script: EXITS, execArgv: [] } : options.hostStart;
  return { hosts: new ReplayHosts(hostStart, false, main, () => lineDebugger, view), asked };
}

/** A refusal as the client reads it: its code and its words. */
async function refusalOf(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ProtocolError, `not a protocol error: ${String(e)}`);
    return { code: e.code, message: e.message };
  }
  assert.fail('not refused');
}

describe("ofStop: the stop's replay host, refused with a reason", () => {
  test('no line stop: badState, nothing written', async () => {
    const { hosts: h, asked } = hosts(null);
    assert.deepEqual(await refusalOf(h.ofStop('lineStepBack')), {
      code: 'badState',
      message: 'lineStepBack: the program is not stopped on a line',
    });
    assert.deepEqual(asked.main, []);
  });

  test("a stop in no task of the runtime's loop: notRecorded, said with where the stop is", async () => {
    const frames: StopFrame[] = [{ functionName: 'onTimer', url: 'file:///p/prog.ts', file: '/p/prog.ts', line: 9 }];
    const { hosts: h, asked } = hosts({ taskId: null, tick: 4, frames });
    assert.deepEqual(await refusalOf(h.ofStop('lineReverseContinue')), {
      code: 'notRecorded',
      message:
        "lineReverseContinue: the stop (onTimer at prog.ts:9) is on the main thread (the debugger's \"event loop\" thread), in code Node's event loop runs outside the runtime loop's ticks (a loop of the program's own, a Node timer or I/O handler, or its code around the runtime's loop), not in a task of the runtime's loop: the recording holds the loop's tasks only (not a loop, thread or process of the program's own, nor its code outside its tasks), so its past cannot be replayed",
    });
    assert.deepEqual(asked.main, []);
  });

  test('a host that cannot start one: replayFailed before any recording is written', async () => {
    const { hosts: h, asked } = hosts({ taskId: 2, tick: 4 }, { hostStart: null });
    assert.deepEqual(await refusalOf(h.ofStop('lineStepBack')), {
      code: 'replayFailed',
      message: 'lineStepBack: this host cannot start a replay host',
    });
    assert.deepEqual(asked.main, []);
  });

  test("the main thread's refusal is the answer; a bad answer is replayFailed; the file goes either way", async () => {
    const answers: unknown[] = [{ refused: 'the run is not recorded' }, { runId: 'x' }, null];
    const { hosts: h, asked } = hosts({ taskId: 2, tick: 4 }, { written: () => answers.shift() });
    const refusals = [];
    for (let i = 0; i < 3; i++) refusals.push(await refusalOf(h.ofStop('lineStepBack')));
    assert.deepEqual(refusals, [
      { code: 'notRecorded', message: 'the run is not recorded' },
      { code: 'replayFailed', message: "lineStepBack: the run's recording could not be written" },
      { code: 'replayFailed', message: "lineStepBack: the run's recording could not be written" },
    ]);
    assert.deepEqual(asked.main, ['writeMidTick(<path>)', 'writeMidTick(<path>)', 'writeMidTick(<path>)']);
    assert.equal(new Set(asked.paths).size, 3, 'a file of its own each time');
    assert.deepEqual(
      asked.paths.filter((p) => existsSync(p)),
      [],
    );
  });

  test('uses run one at a time, and a refused one does not hold up the next', async () => {
    let answerFirst: (answer: unknown) => void = () => undefined;
    const answers: Array<Promise<unknown>> = [
      new Promise((resolve) => (answerFirst = resolve)),
      Promise.resolve({ refused: 'second refused' }),
    ];
    const { hosts: h, asked } = hosts({ taskId: 2, tick: 4 }, { written: () => answers.shift() });
    const both = Promise.allSettled([h.ofStop('a'), h.ofStop('b')]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(asked.main.length, 1, 'the second waits for the first');
    answerFirst({ refused: 'first refused' });
    assert.deepEqual(
      (await both).map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'answered')),
      ['first refused', 'second refused'],
    );
    assert.equal(asked.main.length, 2);
  });

  test("the live thread stepped on to another stop while a stop's past was opened: the stop now's past", async () => {
    const live: Stop = { taskId: 2, tick: 4 };
    let h: ReplayHosts | null = null;
    let stepped = false;
    const made = hosts(live, {
      hostStart: { script: FAKE, execArgv: [] },
      written: () => {
        if (!stepped) {
          // A line step stops in tick 6 before the replay host (being forked) has opened tick 4's past.
          stepped = true;
          live.tick = 6;
          h?.onLineStop(6, true);
          h?.warmUp.cancel();
        }
        return { runId: 1, ticks: live.tick, midTick: true };
      },
    });
    h = made.hosts;
    try {
      const r = await h.ofStop('pastLogpointHits');
      assert.deepEqual([r.stop.tick, r.ticks], [6, 5]);
      assert.deepEqual(made.asked.main, ['writeMidTick(<path>)', 'writeMidTick(<path>)']);
      // The next use at that stop takes it as it is.
      assert.equal(await h.ofStop('pastBreakpointHit'), r);
      assert.equal(made.asked.main.length, 2);
    } finally {
      h.endAll();
    }
  });

  test('a replay host that exits before its hello: replayFailed, nothing kept, the file removed', async () => {
    const { hosts: h, asked } = hosts({ taskId: 2, tick: 4 }, { written: () => ({ runId: 3, ticks: 9 }) });
    const first = await refusalOf(h.ofStop('lineStepBack'));
    assert.deepEqual(
      { code: first.code, start: first.message.startsWith('the line replay host did not start: ') },
      { code: 'replayFailed', start: true },
    );
    assert.equal(h.stop, null);
    // Nothing half-forked is held: the next use forks again (and fails the same way).
    assert.equal((await refusalOf(h.ofStop('lineStepBack'))).code, 'replayFailed');
    assert.equal(asked.paths.length, 2);
    assert.equal(readFileSync(FORKS, 'utf8'), 'xx', 'forked once per use');
    assert.deepEqual(
      asked.paths.filter((p) => existsSync(p)),
      [],
    );
  });
});

describe("besideStop: a replay host of its own over the stop's recording, closed after its use", () => {
  test('no line stop: badState, nothing written, nothing forked', async () => {
    const { hosts: h, asked } = hosts(null);
    assert.deepEqual(await refusalOf(h.besideStop('pastLogpointHits', async () => 'used')), {
      code: 'badState',
      message: 'pastLogpointHits: the program is not stopped on a line',
    });
    assert.deepEqual(asked.main, []);
  });

  test("the stop's copy, written by the stopped thread, opened in a host of its own; the stop's host untouched", async () => {
    const { hosts: h, asked } = hosts(
      { taskId: 2, tick: 6 },
      { hostStart: { script: FAKE, execArgv: [] }, written: () => ({ runId: 1, ticks: 6, midTick: true }) },
    );
    try {
      let used: LineReplayHost | null = null;
      const answer = await h.besideStop('pastLogpointHits', async (r) => {
        used = r;
        // The ticks before the stop's: the stop's own is open in the copy.
        assert.equal(r.ticks, 5);
        assert.equal(r.isClosed, false);
        return 'used';
      });
      assert.equal(answer, 'used');
      assert.equal(used!.isClosed, true, 'closed after its use');
      assert.equal(h.stop, null, "the stop's replay host is neither made nor given the copy");
      assert.deepEqual(asked.main, ['writeMidTick(<path>)']);
      assert.deepEqual(asked.view, [], 'the view (the line shown) is not touched');
      assert.deepEqual(
        asked.paths.filter((p) => existsSync(p)),
        [],
      );
    } finally {
      h.endAll();
    }
  });

  test("the stopped thread's refusal is the answer, and the host forked meanwhile is closed", async () => {
    const { hosts: h } = hosts(
      { taskId: 2, tick: 6 },
      { hostStart: { script: FAKE, execArgv: [] }, written: () => ({ refused: 'the run is not recorded' }) },
    );
    assert.deepEqual(await refusalOf(h.besideStop('pastLogpointHits', async () => 'used')), {
      code: 'notRecorded',
      message: 'the run is not recorded',
    });
  });
});

describe('a new run, a run ended', () => {
  test('a new run sets what it is and forgets its id; the stop role is dropped from the view', () => {
    const { hosts: h, asked } = hosts(null);
    h.runId = 5;
    h.newRun(true, false);
    assert.deepEqual([h.runRecorded, h.runFinished, h.runId], [true, false, null]);
    assert.deepEqual(asked.view, ['drop stop', 'drop search']);
  });

  test('a run stopped by a view has no past to go into; one that finished keeps its recording', () => {
    const stopped = hosts(null);
    stopped.hosts.newRun(true, false);
    stopped.hosts.runEnded(true);
    assert.deepEqual([stopped.hosts.runRecorded, stopped.hosts.runFinished], [false, true]);
    const finished = hosts(null);
    finished.hosts.newRun(true, false);
    finished.hosts.runEnded(false);
    assert.deepEqual([finished.hosts.runRecorded, finished.hosts.runFinished], [true, true]);
    // Not followed: nothing handed on, both roles dropped at each end.
    assert.deepEqual(finished.asked.view, ['drop stop', 'drop search', 'drop stop', 'drop search']);
  });
});
