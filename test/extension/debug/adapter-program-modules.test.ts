// The past of a user's program of several files: a replay starts the program again in the replay host's
// process, and every module the program required must start again too. A module counting at its top level
// (fixtures/ticket-counter.ts) kept its count from the replay before, so Reverse Continue showed tickets
// the run never issued (11, 14, ... where the live run had 4, 3, ...). Through the standalone adapter: the
// breakpoint's hits forward, then back by Reverse Continue and forward again, each hit's `ticket` as live.
// The same when the module is required lazily, from a coroutine (fixtures/ticket-clerks-lazy.ts).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import type { DapEvent } from './dap-client';
import { launchToStop, moveToStop, scopeOf, stackOf, startAdapter, stoppedBodyOf } from './adapter-harness';

/** The `ticket` of each hit: five forward, four back by Reverse Continue, two forward again. */
async function ticketsBackAndForth(program: string): Promise<string[]> {
  const push = lineOf(program, 'got.push(`${name}${ticket}`);');
  const dap = await startAdapter();
  try {
    let stop: DapEvent = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'ticket clerks', program },
      { configure: (d) => d.request('setBreakpoints', { source: { path: program }, breakpoints: [{ line: push }] }) },
    );
    const ticket = async (): Promise<string> => {
      const [top] = await stackOf(dap, Number(stoppedBodyOf(stop).threadId));
      assert.equal(top?.line, push);
      const { variables } = await scopeOf(dap, top!.id, 'Block');
      return variables.get('ticket')?.value ?? '(none)';
    };
    const move = async (command: string): Promise<string> => {
      stop = await moveToStop(dap, command, { threadId: Number(stoppedBodyOf(stop).threadId) });
      return ticket();
    };
    const seen = [await ticket()];
    for (let i = 0; i < 4; i++) seen.push(await move('continue'));
    for (let i = 0; i < 4; i++) seen.push(await move('reverseContinue'));
    for (let i = 0; i < 2; i++) seen.push(await move('continue'));
    return seen;
  } finally {
    await dap.close();
  }
}

describe("a program's required module state in the past", { timeout: 180_000 }, () => {
  for (const [fixture, how] of [
    ['ticket-clerks.ts', 'imported at its load'],
    ['ticket-clerks-lazy.ts', 'required from a coroutine'],
  ] as const)
    it(`each hit of the breakpoint shows the ticket the live run had, back and forth (${how})`, async () => {
      const seen = await ticketsBackAndForth(join(__dirname, 'fixtures', fixture));
      assert.deepEqual(seen, ['1', '2', '3', '4', '5', '4', '3', '2', '1', '2', '3']);
    });
});
