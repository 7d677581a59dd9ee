// A user's program in JavaScript is debugged as a TypeScript one is, in both forms: plain CommonJS
// (no source map: its lines are V8's) and an ES module (.mjs importing a helper of its own, main its
// default export: the host loads it made CommonJS with a source map). A line breakpoint binds (a line
// without code moves to the next with code), the run stops there, steps go forward and back, and
// Reverse Continue lands on the hit before with the locals the live run showed there. Before, the
// plain program's breakpoint never bound ("no loaded code": only scripts with a source map were
// kept), and the ES module's launch was refused ("an ES module cannot import 'coroscope'").
//
// Programs: fixtures/plain-kitchen.cjs and fixtures/esm-kitchen.mjs (two cooks on one loop), a
// breakpoint on the blank line before the line that counts a minute.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import type { DapClient } from './dap-client';
import {
  launchToStop,
  localsOf,
  moveToStop,
  setBreakpoint,
  stackOf,
  startAdapter,
  stoppedBodyOf,
} from './adapter-harness';

/** Each form of program: its name, file, and the line that counts a minute. */
const PROGRAMS = [
  { form: 'a plain JavaScript program', name: 'plain-kitchen', file: 'plain-kitchen.cjs', count: 'done += 1;' },
  { form: 'an ES module program', name: 'esm-kitchen', file: 'esm-kitchen.mjs', count: 'done = nextMinute(done);' },
];

/** Where a thread stands: its top frame's function, file and line, and its locals. */
async function standing(dap: DapClient, threadId: number): Promise<{ at: string; locals: Map<string, string> }> {
  const [top] = await stackOf(dap, threadId);
  assert.ok(top !== undefined, 'a frame');
  return { at: `${top.name} ${top.source?.path}:${top.line}`, locals: await localsOf(dap, top.id) };
}

for (const program of PROGRAMS) {
  const PROGRAM = join(__dirname, 'fixtures', program.file);
  const COUNT_LINE = lineOf(PROGRAM, program.count);
  const BLANK_LINE = COUNT_LINE - 1;
  const LOOP_LINE = lineOf(PROGRAM, 'for (let i = 0; i < minutes; i++) {');

  describe(`${program.form}: breakpoints bind, steps and Reverse Continue work`, { timeout: 180_000 }, () => {
    let dap: DapClient;
    let set: DebugProtocol.Breakpoint | undefined;
    let threadId = 0;
    let firstHit: { at: string; locals: Map<string, string> } | undefined;

    before(async () => {
      dap = await startAdapter();
      const stop = await launchToStop(
        dap,
        { type: 'coroscope', request: 'launch', name: program.name, program: PROGRAM },
        {
          configure: async (d) => {
            set = await setBreakpoint(d, PROGRAM, { line: BLANK_LINE });
          },
        },
      );
      assert.equal(stoppedBodyOf(stop).reason, 'breakpoint');
      threadId = Number(stoppedBodyOf(stop).threadId);
      firstHit = await standing(dap, threadId);
    });

    after(async () => {
      await dap?.close();
    });

    it('the breakpoint on a blank line binds, moved to the next line with code', () => {
      assert.equal(set?.verified, true, set?.message);
      assert.equal(set?.line, COUNT_LINE);
    });

    it("the run stops on that line of the program's own file, with its locals", () => {
      assert.equal(firstHit?.at, `cook ${PROGRAM}:${COUNT_LINE}`);
      assert.equal(firstHit?.locals.get('dish'), '"soup"');
      assert.equal(firstHit?.locals.get('done'), '0');
    });

    it('Step Over goes to the loop, and Step Back returns to the hit with the same locals', async () => {
      await moveToStop(dap, 'next', { threadId });
      const next = await standing(dap, threadId);
      assert.equal(next.at, `cook ${PROGRAM}:${LOOP_LINE}`);
      assert.equal(next.locals.get('done'), '1');
      const back = await moveToStop(dap, 'stepBack', { threadId });
      assert.equal(Number(stoppedBodyOf(back).threadId), threadId);
      assert.deepEqual(await standing(dap, threadId), firstHit);
    });

    it('Continue from the past comes back to the live stop first, on the loop line', async () => {
      await moveToStop(dap, 'continue', { threadId });
      const present = await standing(dap, threadId);
      assert.equal(present.at, `cook ${PROGRAM}:${LOOP_LINE}`);
      assert.equal(present.locals.get('done'), '1');
    });

    it('Continue to the next hit, then Reverse Continue lands on the first as the live run showed it', async () => {
      const hit = await moveToStop(dap, 'continue', { threadId });
      assert.equal(stoppedBodyOf(hit).reason, 'breakpoint');
      const second = await standing(dap, Number(stoppedBodyOf(hit).threadId));
      assert.equal(second.at, `cook ${PROGRAM}:${COUNT_LINE}`);
      assert.equal(second.locals.get('dish'), '"rice"');
      const back = await moveToStop(dap, 'reverseContinue', { threadId: Number(stoppedBodyOf(hit).threadId) });
      assert.equal(stoppedBodyOf(back).reason, 'breakpoint');
      assert.deepEqual(await standing(dap, Number(stoppedBodyOf(back).threadId)), firstHit);
    });
  });
}
