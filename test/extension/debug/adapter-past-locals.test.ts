// The debugger's side of the past-locals oracle (issue 25, item 2; the host's and the CLI's
// side is test/runtime/host/main-thread/past-locals.test.ts). A demo crawl recorded through the
// standalone debug adapter over stdio, as VS Code drives it (10 workers, enough pages that they
// wait on their sockets for most of the run), held at entry and moved on tick by tick with
// Next on the loop's thread. At sampled ticks, the debugger's view is read as VS Code reads it:
// threads, each thread's stackTrace, each frame's scopes and their variables. The run goes on
// to a later tick, and then Step Back on the loop's thread goes back tick by tick to each
// sampled tick (a replayed past tick), where the same requests must answer the same: threads,
// frames (name, source, line), scopes, and each variable's value. No variable may read
// `undefined` in the past where the live run showed a value. The Task scope's two timings are
// left out (TIMINGS: they measure time, and the past cannot show the live run's).
//
// Invariant: the only rewrites are the ones the host's oracle makes for what differs between a
// live run and its replay by construction (sameMomentText there); nothing else is forgiven.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { TASKS_REQUEST, type TasksBody } from '../../../extension/debug/custom-requests';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import type { DapClient } from './dap-client';
import { demoCrawl, launchToStop, startAdapter } from './adapter-harness';

/** Ticks the live run is read at, over its first part (the workers on their sockets). */
const SAMPLED = [12, 40, 75, 110, 150];
/** How far the live run goes before the debugger goes back. */
const LATER = 160;

/**
 * A task scope's timings, left out of the comparison: `busy` is the wall time of the task's
 * steps, which the recording does not log (a replayed moment says "not recorded", as the
 * CLI's dump says null: replay-command.ts), and `since resumed` counts to the moment's
 * "now", which a past moment takes as the recorded time its tick began and the live hold as the
 * loop's time when it stopped. Both are measurements of time, not the program's state.
 */
const TIMINGS: ReadonlySet<string> = new Set(['busy', 'since resumed']);
/** The scopes that show a task's facts (the frame's task, and a "created by" frame's creator). */
const TASK_SCOPES: ReadonlySet<string> = new Set(['Task', 'Creator task']);

/** One variable as the Variables view shows it. */
type VariableView = readonly [name: string, value: string];

interface FrameView {
  readonly name: string;
  readonly source: string | null;
  readonly line: number;
  /** Each scope by name, with its variables. */
  readonly scopes: ReadonlyArray<readonly [scope: string, variables: readonly VariableView[]]>;
}

interface ThreadView {
  readonly id: number;
  readonly name: string;
  readonly frames: readonly FrameView[];
}

/**
 * What differs between the live run and a replay of it by construction, and only that (the
 * rewrites of past-locals.test.ts's sameMomentText): a socket's connection object (the kernel's,
 * or fed from the recording), what the kernel delivered to it while the live loop was held (its
 * receive queue and connect's completion: a replay gets them at the next tick), and the loop's
 * clock object (recording, or giving back the readings). Everything else must be equal.
 */
function sameMomentText(text: string): string {
  return text
    .replace(/_conn: [A-Za-z]+/g, '_conn: <connection>')
    .replace(/_state: "connect(ing|ed)"/g, '_state: <connecting or connected>')
    .replace(/_chunks: Array\(\d+\), _chunkHead: \d+/g, '_chunks: <received>, _chunkHead: <received>')
    .replace(/clock: [A-Za-z]+Clock/g, 'clock: <clock>');
}

/** The tick every view shows now (the Coroutines view's request). */
async function tickShown(dap: DapClient): Promise<number> {
  return (await dap.request<TasksBody>(TASKS_REQUEST)).tick;
}

/**
 * Every thread of the moment shown, with its frames and each frame's scopes and variables, as VS Code asks
 * for them.
 */
async function debuggerView(dap: DapClient): Promise<ThreadView[]> {
  const { threads } = await dap.request<DebugProtocol.ThreadsResponse['body']>('threads');
  const out: ThreadView[] = [];
  for (const t of threads) {
    const { stackFrames } = await dap.request<DebugProtocol.StackTraceResponse['body']>('stackTrace', {
      threadId: t.id,
      startFrame: 0,
      levels: 100,
    });
    const frames: FrameView[] = [];
    for (const f of stackFrames) {
      const { scopes } = await dap.request<DebugProtocol.ScopesResponse['body']>('scopes', { frameId: f.id });
      const shown: Array<readonly [string, readonly VariableView[]]> = [];
      for (const s of scopes) {
        const { variables } = await dap.request<DebugProtocol.VariablesResponse['body']>('variables', {
          variablesReference: s.variablesReference,
        });
        shown.push([
          s.name,
          variables
            .filter((v) => !(TASK_SCOPES.has(s.name) && TIMINGS.has(v.name)))
            .map((v) => [v.name, sameMomentText(v.value)] as const),
        ]);
      }
      frames.push({ name: f.name, source: f.source?.path ?? null, line: f.line, scopes: shown });
    }
    out.push({ id: t.id, name: t.name, frames });
  }
  return out;
}

/** Asserts the past view equals the live one, naming the first thread, frame, scope and variable that differ. */
function assertSameView(past: readonly ThreadView[], live: readonly ThreadView[], what: string): void {
  assert.deepEqual(
    past.map((t) => `${t.id} ${t.name}`),
    live.map((t) => `${t.id} ${t.name}`),
    `${what}: the threads`,
  );
  for (let i = 0; i < live.length; i++) {
    const l = live[i]!;
    const p = past[i]!;
    assert.deepEqual(
      p.frames.map((f) => `${f.name} ${f.source}:${f.line}`),
      l.frames.map((f) => `${f.name} ${f.source}:${f.line}`),
      `${what}: ${l.name}'s frames`,
    );
    for (let k = 0; k < l.frames.length; k++) {
      const lf = l.frames[k]!;
      const pf = p.frames[k]!;
      assert.deepEqual(
        pf.scopes.map(([s]) => s),
        lf.scopes.map(([s]) => s),
        `${what}: ${l.name} ${lf.name}'s scopes`,
      );
      for (let j = 0; j < lf.scopes.length; j++) {
        const [scope, variables] = lf.scopes[j]!;
        const pastVariables = pf.scopes[j]![1];
        // Named first: a value that turned to `undefined` in the past is the bug this oracle is for.
        for (const [name, value] of variables) {
          if (value === 'undefined') continue;
          const then = pastVariables.find(([n]) => n === name)?.[1];
          assert.notEqual(
            then,
            'undefined',
            `${what}: ${l.name} ${lf.name}'s ${scope} ${name} reads undefined in the past; live it was ${value}`,
          );
        }
        assert.deepEqual(pastVariables, variables, `${what}: ${l.name} ${lf.name}'s ${scope}`);
      }
    }
  }
}

/** A move of the loop's thread (Next or Step Back), answered and shown: the tick shown after it. */
async function moveLoop(dap: DapClient, command: 'next' | 'stepBack'): Promise<number> {
  const from = dap.mark();
  const r = await dap.requestRaw(command, { threadId: LOOP_THREAD_ID }, 60_000);
  assert.equal(r.success, true, `${command}: ${r.message ?? ''} ${JSON.stringify(r.body)}`);
  await dap.waitForEvent('stopped', { from, timeoutMs: 60_000 });
  return tickShown(dap);
}

describe("a recorded demo crawl: at sampled ticks, the debugger's past frames and Variables equal what it showed live", {
  timeout: 300_000,
}, () => {
  let dap: DapClient;
  before(async () => {
    dap = await startAdapter({ supportsVariableType: true });
  });
  after(async () => {
    await dap?.close();
  });

  it('reads threads, stacks, scopes and variables live at each sampled tick, and the same after Step Back to it', async (ctx) => {
    const entry = await launchToStop(dap, demoCrawl({ pages: 600, maxTasks: 10, stopOnEntry: true, record: true }), {
      exceptionFilters: [],
    });
    assert.equal(entry.body.reason, 'entry');

    // Live: held after each tick, read at the sampled ones.
    const live = new Map<number, ThreadView[]>();
    let tick = await tickShown(dap);
    for (const sampled of SAMPLED) {
      while (tick < sampled) tick = await moveLoop(dap, 'next');
      assert.equal(tick, sampled, 'Next on the loop thread runs one tick');
      live.set(tick, await debuggerView(dap));
    }
    while (tick < LATER) tick = await moveLoop(dap, 'next');

    // The moments are worth comparing: workers waiting on their sockets, with waitReadable's locals shown.
    const waiting = [...live.values()].flat().flatMap((t) => t.frames.filter((f) => f.name.includes('waitReadable')));
    assert.ok(waiting.length >= 20, `${waiting.length} waitReadable frames shown live`);
    for (const f of waiting) {
      const locals = new Map(f.scopes.find(([s]) => s === 'Locals')?.[1] ?? []);
      assert.match(
        locals.get('fut') ?? '',
        /^<Future (pending socket\.read|finished)/,
        `live: waitReadable's fut (${JSON.stringify([...locals])})`,
      );
      assert.equal(locals.get('kind'), '"socket.read"', "live: waitReadable's kind");
    }

    // Back: Step Back on the loop's thread, a tick at a time, to each sampled tick (the latest first).
    const started = performance.now();
    let backs = 0;
    for (const sampled of [...SAMPLED].reverse()) {
      while (tick > sampled) {
        tick = await moveLoop(dap, 'stepBack');
        backs++;
      }
      assert.equal(tick, sampled, 'Step Back on the loop thread goes back one tick');
      assertSameView(await debuggerView(dap), live.get(sampled)!, `Step Back to tick ${sampled}`);
    }
    const views = [...live.values()].flat();
    const frames = views.flatMap((t) => t.frames);
    const variables = frames.flatMap((f) => f.scopes.flatMap(([, v]) => v));
    ctx.diagnostic(
      `ticks ${SAMPLED.join(', ')}: ${views.length} threads, ${frames.length} frames, ${variables.length} variables, each the same live and after Step Back; ${backs} Step Backs in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
