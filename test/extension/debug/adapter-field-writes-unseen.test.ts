// "Where was this set?" for a field whose last write is not a plain assignment (issue 28), in the standalone
// debug adapter over DAP, on fixtures/field-writer-unseen.ts: writer-b sets `assigned.status` and
// `keyed.status` plainly, then writer-c by Object.assign and writer-d by a bracketed key (writer-e passes a
// guarded assignment that does not run, then Object.assign). From holder-a's `return`, Go to Last Change
// (and Reverse Continue on a data breakpoint) must never name a line seen: the console says the last write
// was made by code not seen, and the task's walk shows where holder-a first sees the new value.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import type { DapEvent } from './dap-client';
import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  initialize,
  launchToStop,
  moveToStop,
  outputSince,
  scopeOf,
  spawnAdapter,
  stackOf,
  stoppedBodyOf,
  threadsOf,
} from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'field-writer-unseen.ts');
const SEEN_LINES = [
  lineOf(PROGRAM, "a.status = 'written by B';"),
  lineOf(PROGRAM, "b.status = 'written by B';"),
  lineOf(PROGRAM, "c.status = 'written by B';"),
  lineOf(PROGRAM, "if (when) target.status = 'never';"),
];
const RETURN_LINE = lineOf(PROGRAM, 'return seen.length');
const GATHER_LINE = lineOf(PROGRAM, 'yield* gather(b, c, d, e);');

/** From holder-a's `return`, the last change of `local.status`: where it landed and what the console said. */
async function lastChangeOf(
  local: 'assigned' | 'keyed' | 'guarded',
  move: 'lastChange' | 'reverseContinue',
): Promise<{ task: string; line: number; said: string; ms: number }> {
  const dap = await spawnAdapter();
  try {
    await initialize(dap, { supportsVariableType: true });
    const atReturn = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'field-writer-unseen', program: PROGRAM },
      {
        configure: async (d) => {
          await d.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [{ line: RETURN_LINE }] });
        },
        exceptionFilters: [],
      },
    );
    await dap.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [] });
    const holder = Number(stoppedBodyOf(atReturn).threadId);
    const frames = await stackOf(dap, holder);
    assert.equal(frames[0]!.line, RETURN_LINE);
    const object = (await scopeOf(dap, frames[0]!.id, 'Locals')).variables.get(local);
    assert.ok(object !== undefined && object.variablesReference > 0, `${local} in Locals`);
    await dap.request('variables', { variablesReference: object.variablesReference });
    const item = { variablesReference: object.variablesReference, name: 'status' };
    const from = dap.mark();
    const started = Date.now();
    let stopped: DapEvent;
    if (move === 'lastChange') stopped = await moveToStop(dap, 'coroscope/lastChange', item);
    else {
      const info = await dap.request<DebugProtocol.DataBreakpointInfoResponse['body']>('dataBreakpointInfo', item);
      assert.ok(info.dataId !== null, info.description);
      await dap.request('setDataBreakpoints', { breakpoints: [{ dataId: info.dataId, accessType: 'write' }] });
      stopped = await moveToStop(dap, 'reverseContinue', { threadId: holder });
    }
    const ms = Date.now() - started;
    const threadId = Number(stoppedBodyOf(stopped).threadId);
    const name = (await threadsOf(dap)).find((t) => t.id === threadId)?.name ?? `(thread ${threadId})`;
    const line = (await stackOf(dap, threadId))[0]!.line;
    return { task: name.replace(/ [#[].*$/, ''), line, said: outputSince(dap, from), ms };
  } finally {
    await dap.close();
  }
}

describe('Go to Last Change on a field last written by code not seen', { timeout: 240_000 }, () => {
  for (const [local, move] of [
    ['assigned', 'lastChange'],
    ['keyed', 'lastChange'],
    ['keyed', 'reverseContinue'],
    ['guarded', 'lastChange'],
  ] as const) {
    it(`${local}.status, ${move}: never an assignment line seen`, async () => {
      const { task, line, said, ms } = await lastChangeOf(local, move);
      assert.ok(!SEEN_LINES.includes(line), `landed on an assignment line seen: ${said}`);
      assert.doesNotMatch(said, /set by .*field-writer-unseen\.ts:\d+ \(tick \d+, writer-[be]/);
      assert.match(said, new RegExp(`the last write to ${local}\\.status was made by code Coroscope did not see`));
      // The task's walk: holder-a first sees the new value on the line after its gather, which does not assign it.
      assert.deepEqual([task, line], ['holder-a', GATHER_LINE + 1], said);
      assert.match(said, /made by code that ran while holder-a/);
      const doubt = said.split('\n').find((l) => l.includes('did not see'));
      process.stdout.write(`# ${local}.status ${move}: ${ms} ms; ${doubt}\n`);
    });
  }
});
