// "Where was this set?" and one task in both directions (issue 28), in the standalone debug
// adapter with real DAP messages, on a program of two counters (fixtures/value-changes.ts).
// A live data breakpoint on counter-a's `total` stops where each write is first seen; at the
// counter's `return`, Go to Last Change goes back through the recording to the same places,
// in reverse, with the same values and ticks, and is refused before the first. Refusals: a
// value at a stop between ticks, an unknown item, Go to Next Change on the live run. Moves
// with `singleThread` land on that task's lines only, and between ticks on its suspensions; from a
// task's last line as it ends (fixtures/task-end*.ts, task-raises.ts: it returns or raises), the limit
// lapses: Step Over and Step Out land on the next line the loop runs (its awaiter's, or a peer's in the
// same tick), live and through the recording alike; back, at its first line, the move is refused.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import type { DapClient } from './dap-client';
import {
  initialize,
  launchToStop,
  moveToStop,
  outputSince,
  refusalOf,
  scopeOf,
  spawnAdapter,
  stackOf,
  stopPlace,
  tasksOf,
  threadsOf,
} from './adapter-harness';
import type { DapEvent } from './dap-client';

const PROGRAM = join(__dirname, 'fixtures', 'value-changes.ts');
const BOX_LINE = lineOf(PROGRAM, 'const box = { count: 0 };');
const COUNT_LINE = lineOf(PROGRAM, 'box.count = total;');
const RETURN_LINE = lineOf(PROGRAM, 'return total;');
const LOG_LINE = lineOf(PROGRAM, 'log.push(');

async function start(): Promise<DapClient> {
  const dap = await spawnAdapter();
  const init = await initialize(dap, { supportsVariableType: true });
  assert.equal(init.supportsDataBreakpoints, true);
  assert.equal(init.supportsSingleThreadExecutionRequests, true);
  return dap;
}

async function setLineBreakpoint(dap: DapClient, line: number | null, condition?: string): Promise<void> {
  const set = await dap.request<DebugProtocol.SetBreakpointsResponse['body']>('setBreakpoints', {
    source: { path: PROGRAM },
    breakpoints: line === null ? [] : [condition === undefined ? { line } : { line, condition }],
  });
  if (line !== null) assert.equal(set.breakpoints[0]!.verified, true, set.breakpoints[0]!.message);
}

async function launchTo(dap: DapClient, line: number, condition: string): Promise<number> {
  const stopped = await launchToStop(
    dap,
    { type: 'coroscope', request: 'launch', name: 'changes', program: PROGRAM },
    { configure: (d) => setLineBreakpoint(d, line, condition), exceptionFilters: [] },
  );
  assert.equal(stopped.body.reason, 'breakpoint');
  return Number(stopped.body.threadId);
}

/** The Locals scope of the thread's top frame: its reference and its variables. */
async function topLocals(
  dap: DapClient,
  threadId: number,
): Promise<{ ref: number; variables: Map<string, DebugProtocol.Variable> }> {
  const frames = await stackOf(dap, threadId);
  return scopeOf(dap, frames[0]!.id, 'Locals');
}

async function tickNow(dap: DapClient): Promise<number> {
  return (await tasksOf(dap)).tick;
}

interface Seen {
  line: number;
  tick: number;
  total: string;
}

async function seenAt(dap: DapClient, threadId: number): Promise<Seen> {
  const frames = await stackOf(dap, threadId);
  assert.equal(frames[0]!.name, 'counter');
  const { variables } = await topLocals(dap, threadId);
  return { line: frames[0]!.line, tick: await tickNow(dap), total: variables.get('total')?.value ?? '(none)' };
}

/** The text of the error response of a request. */
async function refusal(dap: DapClient, command: string, args: unknown): Promise<string> {
  return (await refusalOf(dap, command, args)).message ?? '';
}

describe('where a value was set, and one task in both directions', { timeout: 240_000 }, () => {
  let dap: DapClient;
  let thread = 0;
  const writes: Seen[] = [];

  before(async () => {
    dap = await start();
  });
  after(async () => {
    await dap?.close();
  });

  it('a live data breakpoint on a local stops where each write is first seen', async () => {
    thread = await launchTo(dap, BOX_LINE, "name === 'a'");
    await setLineBreakpoint(dap, null);
    const { ref } = await topLocals(dap, thread);
    const info = await dap.request<DebugProtocol.DataBreakpointInfoResponse['body']>('dataBreakpointInfo', {
      variablesReference: ref,
      name: 'total',
    });
    assert.ok(info.dataId !== null, info.description);
    const set = await dap.request<DebugProtocol.SetDataBreakpointsResponse['body']>('setDataBreakpoints', {
      breakpoints: [{ dataId: info.dataId, accessType: 'write' }],
    });
    assert.equal(set.breakpoints[0]!.verified, true);
    for (const expected of ['1', '5', '12']) {
      const from = dap.mark();
      await dap.request('continue', { threadId: thread });
      const stopped = await dap.waitForEvent('stopped', { from });
      assert.equal(Number(stopped.body.threadId), thread, 'the data breakpoint stops in its own task');
      const seen = await seenAt(dap, thread);
      assert.deepEqual([seen.line, seen.total], [COUNT_LINE, expected], 'the line after the write, the new value');
      writes.push(seen);
    }
    assert.ok(writes[0]!.tick < writes[1]!.tick && writes[1]!.tick < writes[2]!.tick, JSON.stringify(writes));
    await dap.request('setDataBreakpoints', { breakpoints: [] });
  });

  it('Go to Last Change goes back to where the live data breakpoint stopped, each write in turn', async () => {
    await setLineBreakpoint(dap, RETURN_LINE, "name === 'a'");
    let from = dap.mark();
    await dap.request('continue', { threadId: thread });
    await dap.waitForEvent('stopped', { from });
    await setLineBreakpoint(dap, null);
    const at = await seenAt(dap, thread);
    assert.deepEqual([at.line, at.total], [RETURN_LINE, '12']);
    for (const expected of [...writes].reverse()) {
      const { ref } = await topLocals(dap, thread);
      from = dap.mark();
      await dap.request('coroscope/lastChange', { variablesReference: ref, name: 'total' });
      const stopped = await dap.waitForEvent('stopped', { from });
      assert.equal(Number(stopped.body.threadId), thread);
      assert.deepEqual(await seenAt(dap, thread), expected, 'the same line, tick and value as the live stop');
      const said = dap.events
        .slice(from)
        .filter((e) => e.event === 'output')
        .map((e) => String(e.body.output))
        .join('');
      assert.match(said, new RegExp(`total was set by \\S+:${COUNT_LINE - 1} \\(tick ${expected.tick}, counter-a\\)`));
    }
  });

  it('refuses what it cannot answer, with the reason', async () => {
    assert.equal(
      await refusal(dap, 'coroscope/lastChange', { name: 'total' }),
      'coroscope/lastChange: "variablesReference" (number) and "name" (string) are needed',
    );
    const { ref } = await topLocals(dap, thread);
    assert.equal(
      await refusal(dap, 'coroscope/lastChange', { variablesReference: ref, name: 'nothing-here' }),
      'Go to Last Change: "nothing-here" is not a local or a field the line stop shows (the Locals and closure scopes of a frame, and what they hold)',
    );
    const bad = await dap.request<DebugProtocol.SetDataBreakpointsResponse['body']>('setDataBreakpoints', {
      breakpoints: [{ dataId: 'someone-else:x' }],
    });
    assert.equal(bad.breakpoints[0]!.verified, false);
  });

  it('Go to Next Change forwards through the recording, on a field too; and Last Change stops at the first', async () => {
    // Where `total` first became 1 (shown in the past): the next change of box.count (a field) is a line later.
    const locals = await topLocals(dap, thread);
    const box = locals.variables.get('box');
    assert.ok(box !== undefined && box.variablesReference > 0);
    await dap.request('variables', { variablesReference: box.variablesReference });
    let from = dap.mark();
    await dap.request('coroscope/nextChange', { variablesReference: box.variablesReference, name: 'count' });
    await dap.waitForEvent('stopped', { from });
    const seen = await seenAt(dap, thread);
    assert.deepEqual([seen.line, seen.tick], [LOG_LINE, writes[0]!.tick], 'box.count is first 1 a line later');
    // The next change of `total`: the second write, where the live data breakpoint stopped.
    const now = await topLocals(dap, thread);
    from = dap.mark();
    await dap.request('coroscope/nextChange', { variablesReference: now.ref, name: 'total' });
    await dap.waitForEvent('stopped', { from });
    assert.deepEqual(await seenAt(dap, thread), writes[1]);
    // Back: Last Change twice goes to the first write, then to `let total = 0`'s.
    for (let i = 0; i < 2; i++) {
      const { ref } = await topLocals(dap, thread);
      from = dap.mark();
      await dap.request('coroscope/lastChange', { variablesReference: ref, name: 'total' });
      await dap.waitForEvent('stopped', { from });
    }
    // Before the first write: `let total = 0` sets it (first seen on the next line), and nothing before that.
    const first = await seenAt(dap, thread);
    assert.deepEqual([first.line, first.total], [BOX_LINE, '0']);
    const again = await topLocals(dap, thread);
    assert.equal(
      await refusal(dap, 'coroscope/lastChange', { variablesReference: again.ref, name: 'total' }),
      `Go to Last Change: no earlier change of total in the task's lines (1 walked, then the start of what the recording can replay by line): value-changes.ts:${lineOf(PROGRAM, 'let total = 0;')} (tick ${first.tick}), the line reached, is shown`,
    );
  });

  it('singleThread steps stay on one task', async () => {
    // One task: Continue and Step Over with singleThread go to that task's next lines, whatever else runs.
    for (let i = 0; i < 6; i++) {
      const stopped = await moveToStop(dap, i % 2 === 0 ? 'continue' : 'next', {
        threadId: thread,
        singleThread: true,
      });
      assert.equal(Number(stopped.body.threadId), thread);
      const frames = await stackOf(dap, thread);
      assert.equal(frames[0]!.name, 'counter', `a line of counter-a (${frames[0]!.name}:${frames[0]!.line})`);
    }
  });

  it("singleThread Step Over runs through the other task's hits of a breakpoint, live and in the past alike", async () => {
    // A breakpoint both counters hit: a plain Step Over from counter-a stops at counter-b's hit; limited to
    // counter-a, it goes on to counter-a's next line, live, and the same steps through the past land on the
    // same lines and ticks.
    await dap.request('disconnect', {});
    await dap.close();
    dap = await start();
    const a = await launchTo(dap, COUNT_LINE, 'true');
    const at = async (): Promise<string> => {
      const frames = await stackOf(dap, a);
      return `${frames[0]!.name}:${frames[0]!.line} tick ${await tickNow(dap)}`;
    };
    const stepOver = async (): Promise<string> => {
      const stopped = await moveToStop(dap, 'next', { threadId: a, singleThread: true });
      assert.equal(Number(stopped.body.threadId), a, `a line of counter-a, not of thread ${stopped.body.threadId}`);
      return `${stopped.body.reason} ${await at()}`;
    };
    const live: string[] = [];
    for (let i = 0; i < 8; i++) live.push(await stepOver());
    assert.deepEqual(
      live.map((l) => l.replace(/ tick \d+$/, '')),
      ['step counter:13', 'step counter:9', 'step counter:10', 'step counter:11', 'breakpoint counter:12'].concat([
        'step counter:13',
        'step counter:9',
        'step counter:10',
      ]),
      'counter-a line by line across its suspension, its own hit said as a breakpoint',
    );
    for (let i = 0; i < 8; i++) await moveToStop(dap, 'stepBack', { threadId: a });
    const past: string[] = [];
    for (let i = 0; i < 8; i++) past.push(await stepOver());
    assert.deepEqual(past, live);
  });

  it("between ticks, a value cannot be followed; singleThread moves go by that task's suspensions", async () => {
    await dap.request('disconnect', {});
    await dap.close();
    dap = await start();
    const entry = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'ticks', program: PROGRAM, stopOnEntry: true },
      { exceptionFilters: [] },
    );
    // Tick by tick until counter-a has made a few steps.
    let a = 0;
    for (let i = 0; i < 50 && a === 0; i++) {
      const body = await tasksOf(dap);
      const row = body.tasks.find((t) => t.name === 'counter-a');
      if (row !== undefined && row.steps >= 4) a = row.id;
      else {
        await moveToStop(dap, 'next', { threadId: Number(entry.body.threadId) });
      }
    }
    assert.ok(a > 0, 'counter-a made 4 steps');
    const stepsOf = async (): Promise<number> => (await tasksOf(dap)).tasks.find((t) => t.id === a)!.steps;
    const frames = await stackOf(dap, a);
    const scopes = await dap.request<DebugProtocol.ScopesResponse['body']>('scopes', { frameId: frames[0]!.id });
    const info = await dap.request<DebugProtocol.DataBreakpointInfoResponse['body']>('dataBreakpointInfo', {
      variablesReference: scopes.scopes[0]!.variablesReference,
      name: 'total',
    });
    assert.equal(info.dataId, null);
    assert.equal(
      info.description,
      "only a value shown at a stop on a line (a breakpoint, a step, a past line) can be followed: between ticks the locals are a suspended frame's copy",
    );
    // Live, limited to counter-a: counter-b's hit of a line breakpoint meanwhile does not stop it.
    await setLineBreakpoint(dap, COUNT_LINE, "name === 'b'");
    const before = await stepsOf();
    const live = await moveToStop(dap, 'continue', { threadId: a, singleThread: true });
    assert.equal(Number(live.body.threadId), a, `counter-a's thread, not ${live.body.threadId}`);
    assert.equal(live.body.reason, 'step');
    assert.equal(await stepsOf(), before + 1, "on to counter-a's next suspension, past counter-b's hit");
    await setLineBreakpoint(dap, null);
    const now = await stepsOf();
    let stopped = entry;
    for (const expected of [now - 1, now - 2]) {
      stopped = await moveToStop(dap, 'reverseContinue', { threadId: a, singleThread: true });
      assert.equal(Number(stopped.body.threadId), a);
      assert.equal(await stepsOf(), expected, "back to counter-a's previous suspension");
    }
    stopped = await moveToStop(dap, 'continue', { threadId: a, singleThread: true });
    assert.equal(Number(stopped.body.threadId), a);
    assert.equal(await stepsOf(), now - 1, "on to counter-a's next suspension");
    // Follow This Task: a Reverse Continue without singleThread moves the task followed alone too.
    await dap.request('coroscope/followTask', { threadId: a });
    stopped = await moveToStop(dap, 'reverseContinue', { threadId: a });
    assert.equal(Number(stopped.body.threadId), a);
    assert.equal(await stepsOf(), now - 2, 'the task followed goes back to its previous suspension');
    await dap.request('coroscope/followTask', { threadId: null });
    assert.equal(
      await refusal(dap, 'coroscope/followTask', { threadId: 'x' }),
      'coroscope/followTask: "threadId" must be a task\'s thread id or null',
    );
  });
});

const SHARED = join(__dirname, 'fixtures', 'shared-writes.ts');

describe('where a field was set by another task while the task waited', { timeout: 240_000 }, () => {
  let dap: DapClient;
  before(async () => {
    dap = await start();
  });
  after(async () => {
    await dap?.close();
  });

  it("names the writer's line and task, another task than the one stopped, and stops there", async () => {
    const stopped = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'shared', program: SHARED },
      {
        configure: async (d) => {
          await d.request('setBreakpoints', {
            source: { path: SHARED },
            breakpoints: [{ line: lineOf(SHARED, 'return seen;') }],
          });
        },
        exceptionFilters: [],
      },
    );
    const thread = Number(stopped.body.threadId);
    const frames = await stackOf(dap, thread);
    const { variables } = await scopeOf(dap, frames[0]!.id, 'Locals');
    const state = variables.get('state');
    assert.ok(state !== undefined && state.variablesReference > 0);
    await dap.request('variables', { variablesReference: state.variablesReference });
    const from = dap.mark();
    await dap.request('coroscope/lastChange', { variablesReference: state.variablesReference, name: 'status' });
    const landing = await dap.waitForEvent('stopped', { from });
    // What the console has said since the request (where the task's lines were walked instead: why).
    const saidNow = (): string =>
      dap.events
        .slice(from)
        .filter((e) => e.event === 'output')
        .map((e) => String(e.body.output))
        .join('');
    // Shown at the writer's line, in the writer's thread, before it runs: the value there is the old one.
    const writerThread = Number(landing.body.threadId);
    assert.notEqual(writerThread, thread, saidNow());
    const threads = await threadsOf(dap);
    assert.equal(threads.find((t) => t.id === writerThread)?.name.split(' ')[0], 'writer');
    const written = lineOf(SHARED, "state.status = 'busy';");
    const landed = await stackOf(dap, writerThread);
    assert.equal(landed[0]!.line, written);
    const said = saidNow();
    assert.ok(said.includes(`state.status was set by ${SHARED}:${written} (tick `), said);
    assert.ok(said.includes('another task than the one stopped'), said);
  });
});

const TASK_END = join(__dirname, 'fixtures', 'task-end.ts');
const CHILD_FIRST = lineOf(TASK_END, 'let sum = 0;');
const CHILD_ADD = lineOf(TASK_END, 'sum += i;');
const CHILD_RETURN = lineOf(TASK_END, 'return sum;');
const CHILD_END = CHILD_RETURN + 1;
const AFTER_AWAIT = lineOf(TASK_END, 'log.push(`sum ${sum}`);');
const AWAIT_CHILD = lineOf(TASK_END, 'const sum = yield* worker;');
const MAIN_RETURN = lineOf(TASK_END, 'return sum + beats;');
const TASK_END_PEER = join(__dirname, 'fixtures', 'task-end-peer.ts');
const PEER_BEAT = lineOf(TASK_END_PEER, 'beats += 1;');
const PEER_CHILD_RETURN = lineOf(TASK_END_PEER, 'return sum;');
const TASK_END_NAP = join(__dirname, 'fixtures', 'task-end-nap.ts');
const NAP_RETURN = lineOf(TASK_END_NAP, 'return 1;');
const NAP_AFTER_AWAIT = lineOf(TASK_END_NAP, 'const doubled = got * 2;');
const NAP_SUM = lineOf(TASK_END_NAP, 'const sum = doubled + got;');
const TASK_END_SLEEPER = join(__dirname, 'fixtures', 'task-end-sleeper.ts');
const SLEEPER_CHILD_RETURN = lineOf(TASK_END_SLEEPER, 'return 2;');
const SLEEPER_WOKE = lineOf(TASK_END_SLEEPER, "log.push('woke');");
const TASK_RAISES = join(__dirname, 'fixtures', 'task-raises.ts');
const CHILD_THROW = lineOf(TASK_RAISES, 'throw new Error(');
const MAIN_CATCH = lineOf(TASK_RAISES, 'got = -1;');

describe("a step from a task's last line as it ends, limited to it or not (issue 28)", { timeout: 240_000 }, () => {
  let dap: DapClient;
  after(async () => {
    await dap?.close();
  });

  /** Where a stop stands: its reason, task, function and line, the loop's tick. */
  interface Place {
    reason: string;
    task: string;
    fn: string;
    line: number;
    tick: number;
  }
  const placeOf = async (stop: DapEvent): Promise<Place> => {
    const { reason, task, tick, top } = await stopPlace(dap, stop);
    return { reason, task, fn: top.name, line: top.line, tick };
  };
  /** A place without its tick. */
  const untimed = ({ tick: _, ...place }: Place): Omit<Place, 'tick'> => place;
  /** A stop of task `task` in its function of the same name (each task of these fixtures runs one). */
  const at = (reason: string, task: string, line: number): Omit<Place, 'tick'> => ({ reason, task, fn: task, line });
  const launchTo = async (line: number, program = TASK_END): Promise<DapEvent> => {
    await dap?.close();
    dap = await start();
    return launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'task-end', program },
      {
        configure: async (d) => {
          const set = await d.request<DebugProtocol.SetBreakpointsResponse['body']>('setBreakpoints', {
            source: { path: program },
            breakpoints: [{ line }],
          });
          assert.equal(set.breakpoints[0]!.verified, true, set.breakpoints[0]!.message);
        },
        exceptionFilters: [],
      },
    );
  };
  /**
   * From the landing (main's line), the live run goes on by main's plain steps, so that the present is not the
   * landing; then Reverse Continue goes back to the breakpoint's last hit, in child.
   */
  const backToHit = async (landing: DapEvent, line: number, onTo: number, landed = 'main'): Promise<number> => {
    const main = Number(landing.body.threadId);
    let stop = landing;
    for (let i = 0; i < 2; i++) stop = await moveToStop(dap, 'next', { threadId: main });
    assert.deepEqual(untimed(await placeOf(stop)), at('step', landed, onTo));
    stop = await moveToStop(dap, 'reverseContinue', { threadId: main });
    assert.deepEqual(untimed(await placeOf(stop)), at('breakpoint', 'child', line));
    return Number(stop.body.threadId);
  };
  /** Two Step Overs from `threadId` (limited to it: `singleThread`): each landing's place, what was said, the last. */
  const twoSteps = async (
    threadId: number,
    singleThread: boolean,
  ): Promise<{ places: Place[]; said: string[]; last: DapEvent }> => {
    const places: Place[] = [];
    const said: string[] = [];
    let last: DapEvent | null = null;
    for (let i = 0; i < 2; i++) {
      const from = dap.mark();
      last = await moveToStop(dap, 'next', { threadId, ...(singleThread ? { singleThread } : {}) });
      places.push(await placeOf(last));
      said.push(outputSince(dap, from));
    }
    return { places, said, last: last! };
  };
  /**
   * From the live landing `stop`, back to the last hit of the breakpoint at child's `line` in `program`; then,
   * its breakpoints cleared, the same two plain Step Overs through the recording land where the live ones did.
   */
  const sameInThePast = async (
    stop: DapEvent,
    child: number,
    line: number,
    program: string,
    live: readonly Place[],
    onTo: number,
    landed = 'main',
  ): Promise<void> => {
    assert.equal(await backToHit(stop, line, onTo, landed), child);
    await dap.request('setBreakpoints', { source: { path: program }, breakpoints: [] });
    assert.deepEqual((await twoSteps(child, false)).places, live, 'the same lines and ticks through the recording');
  };

  it("Step Over from child's last line lands on main's line after its `yield* worker`, live and in the past alike", async () => {
    const hit = await launchTo(CHILD_RETURN);
    const child = Number(hit.body.threadId);
    assert.deepEqual(untimed(await placeOf(hit)), at('breakpoint', 'child', CHILD_RETURN));
    const { places: live, said, last: stop } = await twoSteps(child, true);
    // The function's closing brace (its return's break location), then child ends: on to main, which awaited it.
    assert.deepEqual(
      live.map(untimed),
      [at('step', 'child', CHILD_END), at('step', 'main', AFTER_AWAIT)],
      'the step does not run the program on to its end',
    );
    assert.notEqual(Number(stop.body.threadId), child, "main's thread");
    assert.match(
      said[1]!,
      /child's coroutine returned: the task ends\n.*child ended: the step limited to it goes on to the next line the loop runs/s,
    );
    // Step Back from the landing: main's line before it (its step before's), and on again to the landing, limited
    // to main (child's hit of the breakpoint on the way does not stop it).
    const main = Number(stop.body.threadId);
    const mainBack = await placeOf(await moveToStop(dap, 'stepBack', { threadId: main }));
    assert.deepEqual(untimed(mainBack), at('step', 'main', AWAIT_CHILD));
    assert.deepEqual(await placeOf(await moveToStop(dap, 'next', { threadId: main, singleThread: true })), live[1]);
    assert.equal(await backToHit(stop, CHILD_RETURN, MAIN_RETURN), child);
    // With no breakpoint armed, as with one.
    await dap.request('setBreakpoints', { source: { path: TASK_END }, breakpoints: [] });
    const past = await twoSteps(child, true);
    assert.deepEqual(past.places, live, 'the same lines and ticks through the recording');
    // The past landing is main's line as the live one was: Step Back goes to the same line before.
    assert.deepEqual(await placeOf(await moveToStop(dap, 'stepBack', { threadId: main })), mainBack);
    assert.match(past.said[1]!, /child ended: the step limited to it goes on to the next line the loop runs/);
  });

  it("Step Over, not limited, from child's last line lands on main's line too, live and in the past alike", async () => {
    const child = Number((await launchTo(CHILD_RETURN)).body.threadId);
    const { places: live, said, last: stop } = await twoSteps(child, false);
    // A step staying with its task waited for child's next line, which never comes: it ran the program on.
    assert.deepEqual(
      live.map(untimed),
      [at('step', 'child', CHILD_END), at('step', 'main', AFTER_AWAIT)],
      'the step does not run the program on to its end',
    );
    assert.ok(said[1]!.includes('child ended: the step goes on to the next line the loop runs'), said[1]);
    await sameInThePast(stop, child, CHILD_RETURN, TASK_END, live, MAIN_RETURN);
  });

  it("Step Over from child's last line follows the loop past tasks that run no line, live and in the past alike", async () => {
    const child = Number((await launchTo(NAP_RETURN, TASK_END_NAP)).body.threadId);
    const { places: live, last: stop } = await twoSteps(child, false);
    // The naps child started run first, each giving the thread back inside the runtime: the step followed
    // each to the next task resumed, not through the loop's machinery until it gave up and the program ran on.
    assert.deepEqual(
      live.map(untimed),
      [at('step', 'child', NAP_RETURN + 1), at('step', 'main', NAP_AFTER_AWAIT)],
      'the step does not run the program on to its end',
    );
    await sameInThePast(stop, child, NAP_RETURN, TASK_END_NAP, live, NAP_SUM);
  });

  it("Step Over from child's last line lands on the next task's line after the sleep it resumes from", async () => {
    const child = Number((await launchTo(SLEEPER_CHILD_RETURN, TASK_END_SLEEPER)).body.threadId);
    const { places: live, last: stop } = await twoSteps(child, false);
    // sleeper woke in child's tick, after it: it resumes inside the runtime's library (its sleep's `finally`),
    // then runs its next line. Stepped over line by line out of the library, V8 went past that line: the step
    // ran the program on to its end.
    assert.deepEqual(
      live.map(untimed),
      [at('step', 'child', SLEEPER_CHILD_RETURN + 1), at('step', 'sleeper', SLEEPER_WOKE)],
      'the step lands on the line sleeper runs next',
    );
    await sameInThePast(stop, child, SLEEPER_CHILD_RETURN, TASK_END_SLEEPER, live, SLEEPER_WOKE + 2, 'sleeper');
  });

  it("Step Out of child's top frame lands there too, live and in the past alike", async () => {
    let stop = await launchTo(CHILD_ADD);
    const child = Number(stop.body.threadId);
    assert.deepEqual(untimed(await placeOf(stop)), at('breakpoint', 'child', CHILD_ADD));
    await dap.request('setBreakpoints', { source: { path: TASK_END }, breakpoints: [] });
    stop = await moveToStop(dap, 'stepOut', { threadId: child, singleThread: true });
    const live = await placeOf(stop);
    assert.deepEqual(untimed(live), at('step', 'main', AFTER_AWAIT), 'out of child as it ends: on to main');
    await dap.request('setBreakpoints', { source: { path: TASK_END }, breakpoints: [{ line: CHILD_ADD }] });
    assert.equal(await backToHit(stop, CHILD_ADD, MAIN_RETURN), child);
    stop = await moveToStop(dap, 'stepOut', { threadId: child, singleThread: true });
    assert.deepEqual(await placeOf(stop), live, 'the same line and tick through the recording');
  });

  it("Step Over from child's last line lands on the next line the loop runs, peer's in the same tick, in the past too", async () => {
    let stop = await launchTo(PEER_CHILD_RETURN, TASK_END_PEER);
    const child = Number(stop.body.threadId);
    const live: Place[] = [];
    for (let i = 0; i < 2; i++) {
      stop = await moveToStop(dap, 'next', { threadId: child, singleThread: true });
      live.push(await placeOf(stop));
    }
    // Not main, its awaiter: peer runs first, as the loop has it (nothing is scheduled otherwise).
    assert.deepEqual(untimed(live[1]!), at('step', 'peer', PEER_BEAT));
    assert.equal(live[1]!.tick, live[0]!.tick, 'in the tick child ended in');
    const peerThread = Number(stop.body.threadId);
    for (let i = 0; i < 3; i++) stop = await moveToStop(dap, 'next', { threadId: peerThread });
    assert.notEqual((await placeOf(stop)).tick, live[1]!.tick);
    stop = await moveToStop(dap, 'reverseContinue', { threadId: peerThread });
    assert.deepEqual(untimed(await placeOf(stop)), at('breakpoint', 'child', PEER_CHILD_RETURN));
    const past: Place[] = [];
    for (let i = 0; i < 2; i++) {
      stop = await moveToStop(dap, 'next', { threadId: child, singleThread: true });
      past.push(await placeOf(stop));
    }
    assert.deepEqual(past, live, 'the same lines and ticks through the recording');
  });

  it("Step Over from child's `throw` lands in main's `catch`, live and in the past alike", async () => {
    let stop = await launchTo(CHILD_THROW, TASK_RAISES);
    const child = Number(stop.body.threadId);
    assert.deepEqual(untimed(await placeOf(stop)), at('breakpoint', 'child', CHILD_THROW));
    const from = dap.mark();
    stop = await moveToStop(dap, 'next', { threadId: child, singleThread: true });
    const live = await placeOf(stop);
    assert.deepEqual(untimed(live), at('step', 'main', MAIN_CATCH), 'on to the awaiter, where it catches');
    assert.match(outputSince(dap, from), /child's coroutine raised: the task ends\n(.|\n)*child ended: the step/);
    // On past main's sleep (a later tick than the landing's), then back to the hit.
    const main = Number(stop.body.threadId);
    for (let i = 0; i < 3; i++) stop = await moveToStop(dap, 'next', { threadId: main });
    assert.notEqual((await placeOf(stop)).tick, live.tick);
    stop = await moveToStop(dap, 'reverseContinue', { threadId: main });
    assert.deepEqual(untimed(await placeOf(stop)), at('breakpoint', 'child', CHILD_THROW));
    stop = await moveToStop(dap, 'next', { threadId: child, singleThread: true });
    assert.deepEqual(await placeOf(stop), live, 'the same line and tick through the recording');
  });

  it("back, limited to child at its first line: refused with the reason, not run back to the program's start", async () => {
    // Nothing of child ran before its first line: the limit would lapse at its creation, but a step back walks one
    // task's lines (none follows the loop back), so the move is refused, naming the task, and the stop stays.
    const stop = await launchTo(CHILD_FIRST);
    const child = Number(stop.body.threadId);
    assert.deepEqual(untimed(await placeOf(stop)), at('breakpoint', 'child', CHILD_FIRST));
    const refused = await refusal(dap, 'reverseContinue', { threadId: child, singleThread: true });
    assert.match(
      refused,
      /^Step Back: child \(\\?#\d+\) is at its start \(created at tick \d+\): the start of the task: its step at tick \d+ is its first, nothing of it ran before$/,
    );
    const frames = await stackOf(dap, child);
    assert.equal(frames[0]!.line, CHILD_FIRST, 'the stop shown stays');
  });
});
