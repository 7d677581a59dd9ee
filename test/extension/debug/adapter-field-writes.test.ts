// "Where was this set?" for a field another task wrote (issue 28), in the standalone debug adapter over
// DAP, on fixtures/field-writer.ts: holder-a holds `shared` and `other`; writer-b sets `shared.status`
// and writer-other `other.status` later, on the same line, while holder-a sleeps. A live breakpoint on
// that line says where each write ran (task, tick); from holder-a's `return`, Go to Last Change on each
// field lands there (and Reverse Continue with a data breakpoint on it): the writing task's thread selected,
// on its line, in its tick, and the console names them. So it does from holder-a's line before the return,
// stepped back to from the live stop (its past, scanned beside the replay that shows the line).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import type { DapClient, DapEvent } from './dap-client';
import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  initialize,
  launchToStop,
  moveToStop,
  outputSince,
  refusalOf,
  scopeOf,
  spawnAdapter,
  stackOf,
  stoppedBodyOf,
  tasksOf,
  threadsOf,
} from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'field-writer.ts');
const WRITE_LINE = lineOf(PROGRAM, "target.status = 'written by B';");
const RETURN_LINE = lineOf(PROGRAM, 'return seen.length');
const SEEN_LINE = lineOf(PROGRAM, 'const seen =');
/** The writers' first write of `rounds` (each writes it again after setting `status`). */
const ROUNDS_LINE = lineOf(PROGRAM, 'target.rounds += 1;');

interface Place {
  task: string;
  line: number;
  tick: number;
}

async function setLines(dap: DapClient, lines: readonly number[]): Promise<void> {
  await dap.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: lines.map((line) => ({ line })) });
}

/** The field writer launched with breakpoints on `lines`: its first stop. */
function launchWriter(dap: DapClient, lines: readonly number[]): Promise<DapEvent> {
  return launchToStop(
    dap,
    { type: 'coroscope', request: 'launch', name: 'field-writer', program: PROGRAM },
    { configure: (d) => setLines(d, lines), exceptionFilters: [] },
  );
}

/**
 * From a stop, the run goes on to its end (a stop with reason 'end', at tick `endTick`); the stop is then a hit of
 * its past, found again by Reverse Continue (`back`), the breakpoints being as they were.
 */
async function foundAgainAfterEnd(dap: DapClient, stop: DapEvent): Promise<{ endTick: number; back: DapEvent }> {
  const end = await moveToStop(dap, 'continue', { threadId: stoppedBodyOf(stop).threadId });
  assert.equal(stoppedBodyOf(end).reason, 'end');
  const endTick = (await tasksOf(dap)).tick;
  return { endTick, back: await moveToStop(dap, 'reverseContinue', { threadId: stoppedBodyOf(end).threadId }) };
}

async function placeOf(dap: DapClient, threadId: number): Promise<Place> {
  const name = (await threadsOf(dap)).find((t) => t.id === threadId)?.name ?? `(thread ${threadId})`;
  const frames = await stackOf(dap, threadId);
  return { task: name.replace(/ [#[].*$/, ''), line: frames[0]!.line, tick: (await tasksOf(dap)).tick };
}

/**
 * The live run's writes of the line (where a breakpoint on it stopped), then from holder-a's `return` Go to Last
 * Change on `local.status`, or Reverse Continue with a data breakpoint on it.
 */
async function lastChangeOf(
  local: 'shared' | 'other',
  move: 'lastChange' | 'reverseContinue',
  askedAt: 'live' | 'finished' | 'pastOfLive' = 'live',
): Promise<{ writes: Place[]; landed: Place; said: string; status: string | undefined }> {
  const dap = await spawnAdapter();
  try {
    await initialize(dap, { supportsVariableType: true });
    const first = await launchWriter(dap, [WRITE_LINE]);
    const writes = [await placeOf(dap, Number(stoppedBodyOf(first).threadId))];
    const second = await moveToStop(dap, 'continue', { threadId: stoppedBodyOf(first).threadId });
    writes.push(await placeOf(dap, Number(stoppedBodyOf(second).threadId)));
    await setLines(dap, [RETURN_LINE]);
    let atReturn = await moveToStop(dap, 'continue', { threadId: stoppedBodyOf(second).threadId });
    if (askedAt === 'finished') atReturn = (await foundAgainAfterEnd(dap, atReturn)).back;
    await setLines(dap, []);
    // A line of the live stop's past: Step Back from the return, to the line that reads the fields.
    if (askedAt === 'pastOfLive')
      atReturn = await moveToStop(dap, 'stepBack', { threadId: stoppedBodyOf(atReturn).threadId });
    const holder = Number(stoppedBodyOf(atReturn).threadId);
    const frames = await stackOf(dap, holder);
    assert.equal(frames[0]!.line, askedAt === 'pastOfLive' ? SEEN_LINE : RETURN_LINE);
    const locals = await scopeOf(dap, frames[0]!.id, 'Locals');
    const object = locals.variables.get(local);
    assert.ok(object !== undefined && object.variablesReference > 0, `${local} in Locals`);
    // Go to Last Change is asked as VS Code asks it, on a field shown (its object expanded); the data breakpoint
    // as a client may ask it, before the object is expanded (the adapter reads the field itself).
    if (move === 'lastChange') await dap.request('variables', { variablesReference: object.variablesReference });
    const item = { variablesReference: object.variablesReference, name: 'status' };
    const from = dap.mark();
    let stopped: DapEvent;
    if (move === 'lastChange') stopped = await moveToStop(dap, 'coroscope/lastChange', item);
    else {
      const info = await dap.request<DebugProtocol.DataBreakpointInfoResponse['body']>('dataBreakpointInfo', item);
      assert.ok(info.dataId !== null, info.description);
      await dap.request('setDataBreakpoints', { breakpoints: [{ dataId: info.dataId, accessType: 'write' }] });
      stopped = await moveToStop(dap, 'reverseContinue', { threadId: holder });
    }
    const landed = await placeOf(dap, Number(stoppedBodyOf(stopped).threadId));
    // The write's object as Variables shows it there, before the write: a plain field (no trap left on it).
    const landedFrame = (await stackOf(dap, Number(stoppedBodyOf(stopped).threadId)))[0]!;
    const target = (await scopeOf(dap, landedFrame.id, 'Locals')).variables.get('target')!;
    const fields = await dap.request<DebugProtocol.VariablesResponse['body']>('variables', {
      variablesReference: target.variablesReference,
    });
    const status = fields.variables.find((v) => v.name === 'status')?.value;
    return { writes, landed, said: outputSince(dap, from), status };
  } finally {
    await dap.close();
  }
}

describe('Go to Last Change on a field another task wrote lands on that task line', { timeout: 240_000 }, () => {
  for (const [local, writer, move] of [
    ['shared', 'writer-b', 'lastChange'],
    ['other', 'writer-other', 'lastChange'],
    ['shared', 'writer-b', 'reverseContinue'],
  ] as const) {
    it(`${local}.status, ${move}: where the live run's ${writer} wrote it`, async () => {
      const { writes, landed, said, status } = await lastChangeOf(local, move);
      assert.equal(status, local === 'shared' ? '"new"' : '"other"', 'the field before the write, a plain value');
      assert.deepEqual(
        writes.map((w) => [w.task, w.line]),
        [
          ['writer-b', WRITE_LINE],
          ['writer-other', WRITE_LINE],
        ],
        JSON.stringify(writes),
      );
      const live = writes.find((w) => w.task === writer)!;
      process.stdout.write(`# ${local}.status ${move}: ${/found in \d+ ms/.exec(said)?.[0] ?? said}\n`);
      assert.deepEqual(landed, live, said);
      assert.match(
        said,
        new RegExp(`set by .*field-writer\\.ts:${WRITE_LINE} \\(tick ${live.tick}, ${writer} #\\d+\\)`),
      );
    });
  }
});

for (const [askedAt, from] of [
  ['finished', 'from the return found again'],
  ['pastOfLive', 'after a Step Back from the live return'],
] as const) {
  describe(`Go to Last Change on a field another task wrote, ${askedAt === 'finished' ? 'from the past of a finished run' : "from a line of a live stop's past"}`, {
    timeout: 240_000,
  }, () => {
    for (const [local, writer, move] of [
      ['shared', 'writer-b', 'lastChange'],
      ['other', 'writer-other', 'reverseContinue'],
    ] as const) {
      it(`${local}.status, ${move} ${from}: where the live run's ${writer} wrote it`, async () => {
        const { writes, landed, said, status } = await lastChangeOf(local, move, askedAt);
        assert.equal(status, local === 'shared' ? '"new"' : '"other"', 'the field before the write, a plain value');
        const live = writes.find((w) => w.task === writer)!;
        // Listed: the ticks before the line's own (the writes after it are not the last change); beside a live
        // stop's past line, by a replay of their own, the line staying shown meanwhile.
        assert.deepEqual(landed, live, said);
        assert.match(said, new RegExp(`\\(tick ${live.tick}, ${writer} #\\d+\\)`));
      });
    }
  });
}

describe('Go to Next Change on a field another task wrote, from the past of a finished run', {
  timeout: 240_000,
}, () => {
  const START_LINE = lineOf(PROGRAM, 'const o = getRunningLoop()');

  /**
   * From holder-a's line before it makes the writers, found again after the run: Go to Next Change on `field`; and
   * where a live breakpoint on `line` stopped (the writes there).
   */
  async function nextChangeOf(
    local: 'shared' | 'other',
    field: 'status' | 'rounds',
    line = WRITE_LINE,
  ): Promise<{ writes: Place[]; landed: Place; said: string }> {
    const dap = await spawnAdapter();
    try {
      await initialize(dap, { supportsVariableType: true });
      const start = await launchWriter(dap, [START_LINE, line]);
      // The live run's writes of the line, where a breakpoint on it stops.
      const writes: Place[] = [];
      let at = start;
      for (let i = 0; i < 2; i++) {
        at = await moveToStop(dap, 'continue', { threadId: stoppedBodyOf(at).threadId });
        writes.push(await placeOf(dap, Number(stoppedBodyOf(at).threadId)));
      }
      await setLines(dap, [START_LINE]);
      const { back } = await foundAgainAfterEnd(dap, at);
      await setLines(dap, []);
      const frames = await stackOf(dap, Number(stoppedBodyOf(back).threadId));
      assert.equal(frames[0]!.line, START_LINE);
      const object = (await scopeOf(dap, frames[0]!.id, 'Locals')).variables.get(local)!;
      await dap.request('variables', { variablesReference: object.variablesReference });
      const from = dap.mark();
      const stopped = await moveToStop(dap, 'coroscope/nextChange', {
        variablesReference: object.variablesReference,
        name: field,
      });
      return {
        writes,
        landed: await placeOf(dap, Number(stoppedBodyOf(stopped).threadId)),
        said: outputSince(dap, from),
      };
    } finally {
      await dap.close();
    }
  }

  for (const [local, writer] of [
    ['shared', 'writer-b'],
    ['other', 'writer-other'],
  ] as const) {
    it(`${local}.status: lands where the live run's ${writer} wrote it, the one change while holder-a waited`, async () => {
      const { writes, landed, said } = await nextChangeOf(local, 'status');
      assert.deepEqual(
        writes.map((w) => [w.task, w.line]),
        [
          ['writer-b', WRITE_LINE],
          ['writer-other', WRITE_LINE],
        ],
      );
      assert.deepEqual(landed, writes.find((w) => w.task === writer)!, said);
    });
  }

  it("shared.rounds, written twice meanwhile: lands on the first change, where the live run's writer-b first wrote it", async () => {
    const { writes, landed, said } = await nextChangeOf('shared', 'rounds', ROUNDS_LINE);
    assert.deepEqual(
      writes.map((w) => [w.task, w.line]),
      [
        ['writer-other', ROUNDS_LINE],
        ['writer-b', ROUNDS_LINE],
      ],
    );
    assert.deepEqual(landed, writes.find((w) => w.task === 'writer-b')!, said);
    assert.match(said, /the first change of that object's \.rounds after tick \d+, of 2 assignment\(s\) seen/);
  });
});

describe('Go to Next Change past the last change, from the past of a finished run', { timeout: 120_000 }, () => {
  it("walks on to the run's end, shows it, and is refused saying so, as live", async () => {
    const dap = await spawnAdapter();
    try {
      await initialize(dap, { supportsVariableType: true });
      const stop = await launchWriter(dap, [RETURN_LINE]);
      const { endTick, back: atReturn } = await foundAgainAfterEnd(dap, stop);
      await setLines(dap, []);
      const frames = await stackOf(dap, Number(stoppedBodyOf(atReturn).threadId));
      const shared = (await scopeOf(dap, frames[0]!.id, 'Locals')).variables.get('shared')!;
      await dap.request('variables', { variablesReference: shared.variablesReference });
      const from = dap.mark();
      const refusal = await refusalOf(dap, 'coroscope/nextChange', {
        variablesReference: shared.variablesReference,
        name: 'status',
      });
      assert.match(
        refusal.message ?? '',
        /no later change of shared\.status in the task's lines \(\d+ walked, then the present\)/,
      );
      // The walk's end is shown: the run's end, as a live walk shows it.
      const shown = await dap.waitForEvent('stopped', { from, timeoutMs: 10_000 });
      assert.equal(stoppedBodyOf(shown).reason, 'end');
      assert.equal((await tasksOf(dap)).tick, endTick);
    } finally {
      await dap.close();
    }
  });
});

describe('Go to Last Change on a field written again in the stop tick', { timeout: 120_000 }, () => {
  it("names the write made earlier in the stop's own tick, never the one before it", async () => {
    const program = join(__dirname, 'fixtures', 'field-writer-same-tick.ts');
    const earlyLine = lineOf(program, "target.status = 'early';");
    const lateLine = lineOf(program, "target.status = 'late';");
    const dap = await spawnAdapter();
    try {
      await initialize(dap, { supportsVariableType: true });
      const stop = await launchToStop(
        dap,
        { type: 'coroscope', request: 'launch', name: 'same-tick', program },
        {
          configure: async (d) => {
            await d.request('setBreakpoints', {
              source: { path: program },
              breakpoints: [{ line: lateLine }, { line: lineOf(program, 'return seen.length') }],
            });
          },
          exceptionFilters: [],
        },
      );
      const late = await placeOf(dap, Number(stoppedBodyOf(stop).threadId));
      const atReturn = await moveToStop(dap, 'continue', { threadId: stoppedBodyOf(stop).threadId });
      const holder = Number(stoppedBodyOf(atReturn).threadId);
      const at = await placeOf(dap, holder);
      assert.deepEqual([late.task, at.task, at.tick], ['late-writer', 'holder-a', late.tick], 'one tick');
      await dap.request('setBreakpoints', { source: { path: program }, breakpoints: [] });
      const frames = await stackOf(dap, holder);
      const shared = (await scopeOf(dap, frames[0]!.id, 'Locals')).variables.get('shared')!;
      await dap.request('variables', { variablesReference: shared.variablesReference });
      const from = dap.mark();
      const stopped = await moveToStop(dap, 'coroscope/lastChange', {
        variablesReference: shared.variablesReference,
        name: 'status',
      });
      const landed = await placeOf(dap, Number(stoppedBodyOf(stopped).threadId));
      const said = outputSince(dap, from);
      assert.notEqual(landed.line, earlyLine, said);
      assert.doesNotMatch(said, /early-writer/);
      // Scanned up to the stop, its own tick too: late-writer's write there is the last one, named and gone to.
      assert.deepEqual([landed.task, landed.line, landed.tick], ['late-writer', lateLine, late.tick], said);
      assert.match(said, /shared\.status was set by .*late-writer #\d+\), another task than the one stopped/, said);
    } finally {
      await dap.close();
    }
  });
});
