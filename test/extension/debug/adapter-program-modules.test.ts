// The past of a user's program of several files: a replay starts the program again in the replay host's
// process, and every module its loading loaded must start again too. A module counting at its top level
// (fixtures/ticket-counter.ts) kept its count from the replay before, so Reverse Continue showed tickets
// the run never issued (11, 14, ... where the live run had 4, 3, ...). Through the standalone adapter: the
// breakpoint's hits forward, then back by Reverse Continue and forward again, each hit's `ticket` as live.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import type { DapEvent } from './dap-client';
import { launchToStop, moveToStop, scopeOf, stackOf, startAdapter, stoppedBodyOf } from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'ticket-clerks.ts');
const PUSH = lineOf(PROGRAM, 'got.push(`${name}${ticket}`);');

describe("a program's imported module state in the past", { timeout: 180_000 }, () => {
  it('each hit of the breakpoint shows the ticket the live run had, back and forth', async () => {
    const dap = await startAdapter();
    try {
      let stop: DapEvent = await launchToStop(
        dap,
        { type: 'coroscope', request: 'launch', name: 'ticket clerks', program: PROGRAM },
        { configure: (d) => d.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [{ line: PUSH }] }) },
      );
      const ticket = async (): Promise<string> => {
        const [top] = await stackOf(dap, Number(stoppedBodyOf(stop).threadId));
        assert.equal(top?.line, PUSH);
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
      assert.deepEqual(seen, ['1', '2', '3', '4', '5', '4', '3', '2', '1', '2', '3']);
    } finally {
      await dap.close();
    }
  });
});
