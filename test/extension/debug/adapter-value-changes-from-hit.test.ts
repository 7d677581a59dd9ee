// Go to Last Change from a breakpoint hit found in the past (Reverse Continue), not from the live stop: the
// values back through the hit task's step are read in one replay by the replay host showing the hit (host
// lineValuesBack from a hit: pastHitLineValues), and the walk goes back to the change in one move. Its landing
// must be exactly where the line-by-line walk (COROSCOPE_CHANGES_LINE_BY_LINE=1, the oracle) lands: the stop's
// place (reason, tick, task, line), its frames, its locals, the console's words, and where a Step Over and a
// Step Back from there go; and it must take fewer line moves (the host's traced replays) than the oracle.
// Two hits: in a finished run (the hit replay host), and before a live line stop (the stop's replay host). A change
// further back than the step before is read one step at a time, each step in one replay.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import { ADAPTER_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient, type DapEvent } from './dap-client';
import { initialize, launchToStop, localsOf, moveToStop, scopeOf, stackOf, stopPlace } from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'value-changes-before-step.ts');
const RETURN_LINE = lineOf(PROGRAM, 'return count;');
const LOG_LINE = lineOf(PROGRAM, 'log.push(`${name} ${count}`);');

/**
 * Where the hit is found: in the finished run (its end; the last hit of worker's `return count`, worker-two's),
 * or in the live stop's own tick, before it (worker-two stopped at `return count`, its hit on the line before).
 */
type Scene = 'end' | 'live';

/** A place shown: the stop's reason, tick, task, its frames (function and line) and the top frame's locals. */
interface Shown {
  reason: string;
  tick: number;
  task: string;
  frames: string[];
  locals: [string, string][];
}

async function shown(dap: DapClient, stop: DapEvent): Promise<Shown> {
  const place = await stopPlace(dap, stop);
  const frames = await stackOf(dap, Number(stop.body.threadId));
  return {
    reason: place.reason,
    tick: place.tick,
    task: place.task,
    frames: frames.map((f) => `${f.name}:${f.line}`),
    locals: [...(await localsOf(dap, frames[0]!.id))].sort(([a], [b]) => a.localeCompare(b)),
  };
}

async function shownAt(dap: DapClient, from: number): Promise<Shown> {
  return shown(dap, await dap.waitForEvent('stopped', { from }));
}

/** The console's lines since `from` that start with `prefix`, their times made N. */
function said(dap: DapClient, from: number, prefix: string): string[] {
  return dap.events
    .slice(from)
    .map((e) => (e.event === 'output' ? String(e.body.output) : ''))
    .filter((o) => o.startsWith(prefix))
    .map((o) => o.replace(/ in \d+ ms/g, ' in N ms').trim());
}

interface Walked {
  hit: Shown;
  landed: Shown;
  said: string[];
  over: Shown;
  back: Shown;
  /** The walk's trace (COROSCOPE_TRACE_WALK): its values read, each line move. */
  trace: string[];
}

/** Reverse Continue to a past hit of worker's `return count`, then Last Change of `name` there, then a step each way. */
async function fromHit(scene: Scene, name: string, lineByLine: boolean): Promise<Walked> {
  await buildAdapterAndHost();
  const env = { ...process.env, COROSCOPE_TRACE_WALK: '1', COROSCOPE_CHANGES_LINE_BY_LINE: lineByLine ? '1' : '0' };
  const dap = DapClient.spawn(process.execPath, [ADAPTER_SCRIPT], { cwd: PROJECT_ROOT, env });
  try {
    await initialize(dap, { supportsVariableType: true });
    const only = (line: number) => ({ line, condition: "name === 'two'" });
    const breakpoints = {
      source: { path: PROGRAM },
      breakpoints: scene === 'end' ? [{ line: RETURN_LINE }] : [only(LOG_LINE), only(RETURN_LINE)],
    };
    let stop = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'from-hit', program: PROGRAM },
      {
        configure: async (d) => void (scene === 'live' ? await d.request('setBreakpoints', breakpoints) : undefined),
        exceptionFilters: [],
      },
    );
    if (scene === 'live') {
      // worker-two's log line, then its return: the live stop; Reverse Continue finds the log line's hit again.
      assert.equal((await stopPlace(dap, stop)).top.line, LOG_LINE);
      stop = await moveToStop(dap, 'continue', { threadId: Number(stop.body.threadId) });
      assert.equal((await stopPlace(dap, stop)).task, 'worker-two');
    } else {
      // The run at its end: the breakpoint set now, Reverse Continue finds its last hit.
      assert.equal(stop.body.reason, 'end');
      await dap.request('setBreakpoints', breakpoints);
    }
    stop = await moveToStop(dap, 'reverseContinue', { threadId: Number(stop.body.threadId) });
    const thread = Number(stop.body.threadId);
    const hit = await shown(dap, stop);
    // The breakpoint stays: the walks' steps follow the hit's task, and pass its hit in another task on the way.
    const frames = await stackOf(dap, thread);
    const locals = await scopeOf(dap, frames[0]!.id, 'Locals');
    const start = dap.mark();
    await dap.request('coroscope/lastChange', { variablesReference: locals.ref, name }, 60_000);
    const landed = await shownAt(dap, start);
    const words = said(dap, start, 'Coroscope: Go to Last Change');
    const trace = said(dap, start, 'walk ');
    let from = dap.mark();
    await dap.request('next', { threadId: thread });
    const over = await shownAt(dap, from);
    from = dap.mark();
    await dap.request('stepBack', { threadId: thread });
    const back = await shownAt(dap, from);
    return { hit, landed, said: words, over, back, trace };
  } finally {
    await dap.close();
  }
}

/** The line moves a walk made (its trace's `walk step` lines). */
function movesOf(w: Walked): number {
  return w.trace.filter((t) => t.startsWith('walk step')).length;
}

for (const scene of ['end', 'live'] as const) {
  describe(`Go to Last Change from a past hit (${scene === 'end' ? 'a finished run' : 'before a live line stop'}) lands where the line-by-line walk does`, {
    timeout: 300_000,
  }, () => {
    it('local got, set by `got = yield* fetchOne(1)` in the step before: one values walk, one move', async () => {
      const oracle = await fromHit(scene, 'got', true);
      const fast = await fromHit(scene, 'got', false);
      assert.equal(oracle.hit.task, 'worker-two');
      assert.equal(oracle.hit.frames[0], `worker:${scene === 'end' ? RETURN_LINE + 1 : LOG_LINE}`);
      assert.deepEqual(fast.hit, oracle.hit);
      assert.equal(
        oracle.landed.frames[0],
        `worker:${lineOf(PROGRAM, 'count = got.n + 1;')}`,
        'first seen after the write',
      );
      assert.deepEqual(fast.landed, oracle.landed);
      assert.deepEqual(fast.said, oracle.said);
      assert.deepEqual(fast.over, oracle.over);
      assert.deepEqual(fast.back, oracle.back);
      // The fast path read the step's lines and the step before's last line in one values walk, the landing held
      // ready there, and moved once; the oracle moved line by line back into the step before and forth again.
      assert.ok(
        fast.trace.some((t) =>
          /^walk values: \d+ line\(s\) read in N ms, the landing \d+ line\(s\) back held ready/.test(t),
        ),
        fast.trace.join('\n'),
      );
      assert.equal(movesOf(fast), 1, fast.trace.join('\n'));
      assert.ok(!oracle.trace.some((t) => t.startsWith('walk values')), oracle.trace.join('\n'));
      // The oracle: each line back to the step's first, one more into the step before, one forth.
      assert.equal(movesOf(oracle), scene === 'end' ? 5 : 3, oracle.trace.join('\n'));
    });

    it("local count, written twice in the hit task's step and first in its first step: in one replay per step", async () => {
      const oracle = await fromHit(scene, 'count', true);
      const fast = await fromHit(scene, 'count', false);
      assert.deepEqual(fast.hit, oracle.hit);
      assert.deepEqual(fast.landed, oracle.landed);
      assert.deepEqual(fast.said, oracle.said);
      assert.deepEqual(fast.over, oracle.over);
      assert.deepEqual(fast.back, oracle.back);
      if (scene === 'end') {
        // From the return: `count += 1` just before is passed over (said so), the write before it is the change.
        assert.equal(oracle.landed.frames[0], `worker:${LOG_LINE}`);
        assert.ok(
          fast.trace.some((t) => /^walk values: \d+ line\(s\) read/.test(t)),
          fast.trace.join('\n'),
        );
        // To the writing line in one move, then forth to the line after it; the oracle one move per line back.
        assert.equal(movesOf(fast), 2, fast.trace.join('\n'));
        assert.equal(movesOf(oracle), 4, oracle.trace.join('\n'));
      } else {
        // From the log line: `count = got.n + 1` just before is passed over; then no change back through its
        // step, nor its step before, to `let count = 0` in the task's first step: each step read in one values
        // walk and left in one move; the oracle one move per line back.
        assert.equal(
          oracle.landed.frames[0],
          `worker:${lineOf(PROGRAM, 'yield* sleep(0.001);', lineOf(PROGRAM, 'let count = 0;'))}`,
        );
        assert.equal(fast.trace.filter((t) => t.startsWith('walk values')).length, 3, fast.trace.join('\n'));
        assert.equal(movesOf(fast), 4, fast.trace.join('\n'));
        assert.equal(movesOf(oracle), 6, oracle.trace.join('\n'));
      }
    });
  });
}
