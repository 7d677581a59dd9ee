// Go to Last Change of a local written across a suspension, asked after the stop has been read a moment (its
// past prepared meanwhile: pastWarm): the landing is held ready in the values walk's own replay
// (lineValuesBack `held`) and must be exactly where the line-by-line walk (COROSCOPE_CHANGES_LINE_BY_LINE=1,
// the oracle) lands: the stop's place (reason, tick, task, line), its frames, its locals, the console's words,
// and where a Step Over and a Step Back from there go.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import { ADAPTER_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient } from './dap-client';
import { initialize, launchToStop, localsOf, scopeOf, stackOf, stopPlace } from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'value-changes-before-step.ts');
const RETURN_LINE = lineOf(PROGRAM, 'return count;');

/** A place shown: the stop's reason, tick, task, its frames (function and line) and the top frame's locals. */
interface Shown {
  reason: string;
  tick: number;
  task: string;
  frames: string[];
  locals: [string, string][];
}

async function shownAt(dap: DapClient, from: number): Promise<Shown> {
  const stop = await dap.waitForEvent('stopped', { from });
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

/** Last Change of worker-one's `got` from its `return count` (asked 1.5 s after the stop), then a step each way. */
async function landing(
  lineByLine: boolean,
): Promise<{ landed: Shown; said: string[]; over: Shown; back: Shown; trace: string[] }> {
  await buildAdapterAndHost();
  const env = { ...process.env, COROSCOPE_TRACE_WALK: '1', COROSCOPE_CHANGES_LINE_BY_LINE: lineByLine ? '1' : '0' };
  const dap = DapClient.spawn(process.execPath, [ADAPTER_SCRIPT], { cwd: PROJECT_ROOT, env });
  try {
    await initialize(dap, { supportsVariableType: true });
    const stopped = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'held-landing', program: PROGRAM },
      {
        configure: async (d) => {
          await d.request('setBreakpoints', {
            source: { path: PROGRAM },
            breakpoints: [{ line: RETURN_LINE, condition: "name === 'one'" }],
          });
        },
        exceptionFilters: [],
      },
    );
    const thread = Number(stopped.body.threadId);
    await dap.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [] });
    const frames = await stackOf(dap, thread);
    const locals = await scopeOf(dap, frames[0]!.id, 'Locals');
    // The user reads the stop: its past is prepared meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const start = dap.mark();
    await dap.request('coroscope/lastChange', { variablesReference: locals.ref, name: 'got' }, 60_000);
    const landed = await shownAt(dap, start);
    const said = dap.events
      .slice(start)
      .map((e) => (e.event === 'output' ? String(e.body.output) : ''))
      .filter((o) => o.startsWith('Coroscope: Go to Last Change'))
      .map((o) => o.replace(/ in \d+ ms/g, ' in N ms').trim());
    const trace = dap.events
      .slice(start)
      .map((e) => (e.event === 'output' ? String(e.body.output) : ''))
      .filter((o) => o.startsWith('walk '));
    let from = dap.mark();
    await dap.request('next', { threadId: thread });
    const over = await shownAt(dap, from);
    from = dap.mark();
    await dap.request('stepBack', { threadId: thread });
    const back = await shownAt(dap, from);
    return { landed, said, over, back, trace };
  } finally {
    await dap.close();
  }
}

describe('Go to Last Change: the landing held ready in the values walk lands where the line-by-line walk does', {
  timeout: 300_000,
}, () => {
  it('local got, set by `got = yield* fetchOne(1)`: same place, frames, locals, words and steps on', async () => {
    const oracle = await landing(true);
    const fast = await landing(false);
    assert.equal(
      oracle.landed.frames[0],
      `worker:${lineOf(PROGRAM, 'count = got.n + 1;')}`,
      'first seen after the write',
    );
    assert.deepEqual(fast.landed, oracle.landed);
    assert.deepEqual(fast.said, oracle.said);
    assert.deepEqual(fast.over, oracle.over);
    assert.deepEqual(fast.back, oracle.back);
    // The fast path held its landing (no replay for the move there); the oracle walked line by line.
    assert.ok(
      fast.trace.some((t) =>
        /^walk values: \d+ line\(s\) read in \d+ ms, the landing \d+ line\(s\) back held ready/.test(t),
      ),
      fast.trace.join(''),
    );
    assert.ok(!oracle.trace.some((t) => /held ready/.test(t)), oracle.trace.join(''));
  });
});
