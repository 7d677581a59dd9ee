// Go to Last Change of a local written across a suspension (`got = yield* fetchOne(1)`, resumed in
// the stop's step): the values of the stop's step and of the last line of the step before read
// (host lineValuesBack `earlier`), the landing reached in one move back, must land and say what the
// line-by-line walk does (COROSCOPE_CHANGES_LINE_BY_LINE=1, the oracle), each Last Change in turn.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import { ADAPTER_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient } from './dap-client';
import { initialize, launchToStop, refusalOf, scopeOf, stackOf, tasksOf } from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'value-changes-before-step.ts');
const RETURN_LINE = lineOf(PROGRAM, 'return count;');

type Landing = { line: number; tick: number; value: string; said: string[] } | { refused: string };

/** Each Last Change of worker-one's `got` in turn from its `return count`, until refused; and the trace. */
async function lastChanges(lineByLine: boolean): Promise<{ landings: Landing[]; trace: string[] }> {
  await buildAdapterAndHost();
  const env = { ...process.env, COROSCOPE_TRACE_WALK: '1', COROSCOPE_CHANGES_LINE_BY_LINE: lineByLine ? '1' : '0' };
  const dap = DapClient.spawn(process.execPath, [ADAPTER_SCRIPT], { cwd: PROJECT_ROOT, env });
  try {
    await initialize(dap, { supportsVariableType: true });
    const stopped = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'before-step', program: PROGRAM },
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
    for (let i = 0; i < 6; i++) {
      const frames = await stackOf(dap, thread);
      const locals = await scopeOf(dap, frames[0]!.id, 'Locals');
      const from = dap.mark();
      const refused = await refusalOf(dap, 'coroscope/lastChange', { variablesReference: locals.ref, name: 'got' })
        .then((r) => r.message ?? '')
        .catch(() => null);
      if (refused !== null) {
        landings.push({ refused: refused.replace(/\d+ ms/g, 'N ms') });
        break;
      }
      await dap.waitForEvent('stopped', { from });
      const there = await stackOf(dap, thread);
      const { variables } = await dap.request<DebugProtocol.VariablesResponse['body']>('variables', {
        variablesReference: (await scopeOf(dap, there[0]!.id, 'Locals')).ref,
      });
      const said = dap.events
        .slice(from)
        .map((e) => (e.event === 'output' ? String(e.body.output) : ''))
        .filter((o) => o.startsWith('Coroscope: Go to Last Change'))
        .map((o) => o.replace(/ in \d+ ms/g, ' in N ms').trim());
      landings.push({
        line: there[0]!.line,
        tick: (await tasksOf(dap)).tick,
        value: variables.find((v) => v.name === 'got')?.value ?? '(none)',
        said,
      });
    }
    const trace = dap.events
      .slice(start)
      .map((e) => (e.event === 'output' ? String(e.body.output) : ''))
      .filter((o) => o.startsWith('walk '));
    return { landings, trace };
  } finally {
    await dap.close();
  }
}

describe('Go to Last Change of a write before the step lands where the line-by-line walk does', {
  timeout: 300_000,
}, () => {
  it('local got: the landing after `got = yield* ...` in one move back, then each earlier change, then the refusal', async () => {
    const oracle = await lastChanges(true);
    const fast = await lastChanges(false);
    const first = oracle.landings[0];
    assert.ok(first !== undefined && !('refused' in first), JSON.stringify(oracle.landings));
    assert.equal(first.line, lineOf(PROGRAM, 'count = got.n + 1;'), 'first seen on the line after the write');
    assert.match(first.said.join('\n'), /got was set by \S+:\d+ \(tick \d+, worker-one; that line began at tick \d+\)/);
    assert.deepEqual(fast.landings, oracle.landings);
    assert.ok(
      fast.trace.some((t) => /^walk step \d+ to the landing \(written before the step\): line/.test(t)),
      fast.trace.join(''),
    );
    assert.ok(!oracle.trace.some((t) => /written before the step/.test(t)), 'the oracle walks line by line');
  });
});
