// Go to Last Change within a tick (issue 28): the watched value read at every line of the stop's
// tick in one replay (host lineValuesBack) and the walk back to the change in one move must land
// where the line-by-line walk lands (COROSCOPE_CHANGES_LINE_BY_LINE=1, the oracle): for locals and
// fields written several times in one tick, in a callee, and in the tick before, each Last Change
// in turn back to the first (same line, tick, value, console words), then the same refusal.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import { ADAPTER_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient } from './dap-client';
import { initialize, launchToStop, refusalOf, scopeOf, stackOf, tasksOf } from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'value-changes-in-tick.ts');
const RETURN_LINE = lineOf(PROGRAM, 'return a;');

/** Where one Last Change landed (line, tick, the value there, what the console said), or its refusal. */
type Landing = { line: number; tick: number; value: string; said: string[] } | { refused: string };

/** The watched item: a local of worker, or a field of its `box`. */
type Watched = { local: string } | { field: string };

async function itemOf(dap: DapClient, threadId: number, w: Watched): Promise<{ ref: number; name: string }> {
  const frames = await stackOf(dap, threadId);
  const locals = await scopeOf(dap, frames[0]!.id, 'Locals');
  if ('local' in w) return { ref: locals.ref, name: w.local };
  const box = locals.variables.get('box');
  assert.ok(box !== undefined && box.variablesReference > 0, 'box in Locals');
  await dap.request('variables', { variablesReference: box.variablesReference });
  return { ref: box.variablesReference, name: w.field };
}

async function valueOf(dap: DapClient, threadId: number, w: Watched): Promise<string> {
  const { ref, name } = await itemOf(dap, threadId, w);
  const { variables } = await dap.request<DebugProtocol.VariablesResponse['body']>('variables', {
    variablesReference: ref,
  });
  return variables.find((v) => v.name === name)?.value ?? '(none)';
}

/** Each Last Change of `w` in turn from worker-one's `return a`, until refused; and whether lineValuesBack ran. */
async function lastChanges(w: Watched, lineByLine: boolean): Promise<{ landings: Landing[]; valuesRead: boolean }> {
  await buildAdapterAndHost();
  const env = { ...process.env, COROSCOPE_TRACE_WALK: '1', COROSCOPE_CHANGES_LINE_BY_LINE: lineByLine ? '1' : '0' };
  const dap = DapClient.spawn(process.execPath, [ADAPTER_SCRIPT], { cwd: PROJECT_ROOT, env });
  try {
    await initialize(dap, { supportsVariableType: true });
    const stopped = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'in-tick', program: PROGRAM },
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
    const landings: Landing[] = [];
    const start = dap.mark();
    for (let i = 0; i < 8; i++) {
      const item = await itemOf(dap, thread, w);
      const from = dap.mark();
      const refused = await refusalOf(dap, 'coroscope/lastChange', { variablesReference: item.ref, name: item.name })
        .then((r) => r.message ?? '')
        .catch(() => null);
      if (refused !== null) {
        landings.push({ refused: refused.replace(/\d+ ms/g, 'N ms') });
        break;
      }
      await dap.waitForEvent('stopped', { from });
      const frames = await stackOf(dap, thread);
      const said = dap.events
        .slice(from)
        .map((e) => (e.event === 'output' ? String(e.body.output) : ''))
        .filter((o) => o.startsWith('Coroscope: Go to Last Change'))
        .map((o) => o.replace(/ in \d+ ms/g, ' in N ms').trim());
      landings.push({
        line: frames[0]!.line,
        tick: (await tasksOf(dap)).tick,
        value: await valueOf(dap, thread, w),
        said,
      });
    }
    const valuesRead = dap.events
      .slice(start)
      .some((e) => e.event === 'output' && /^walk values: [1-9]\d* line/.test(String(e.body.output)));
    return { landings, valuesRead };
  } finally {
    await dap.close();
  }
}

describe('Go to Last Change read in one replay of the tick lands where the line-by-line walk does', {
  timeout: 600_000,
}, () => {
  const cases: Watched[] = [{ local: 'a' }, { local: 'b' }, { field: 'n' }, { field: 'label' }];
  for (const w of cases) {
    const what = 'local' in w ? `local ${w.local}` : `field box.${w.field}`;
    it(`${what}: each Last Change in turn, then the refusal`, async () => {
      const oracle = await lastChanges(w, true);
      const fast = await lastChanges(w, false);
      assert.equal(oracle.valuesRead, false, 'the oracle walks line by line');
      assert.equal(fast.valuesRead, true, "the values were read in one replay of the stop's tick");
      assert.ok(oracle.landings.filter((l) => !('refused' in l)).length >= 2, JSON.stringify(oracle.landings));
      assert.deepEqual(fast.landings, oracle.landings);
    });
  }
});
