// stopOnEntry on a user's program through the STANDALONE debug adapter over DAP (issue 27):
// the first stop (reason 'entry', before the first tick) shows the main task's frame at the
// program's first line (main's first statement), not "no frames".

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DapClient } from './dap-client';
import { launchToStop, stackOf, startAdapter, threadsOf } from './adapter-harness';
import { lineOf } from '../../source-line';

const PROGRAM = join(__dirname, 'fixtures', 'queue-workers.ts');

describe('stopOnEntry on a user program', { timeout: 90_000 }, () => {
  let dap: DapClient;

  before(async () => {
    dap = await startAdapter();
  });

  after(async () => {
    await dap?.close();
  });

  it("shows main's frame at the program's first line", async () => {
    const from = dap.mark();
    const stopped = await launchToStop(dap, {
      type: 'coroscope',
      request: 'launch',
      name: 'entry',
      program: PROGRAM,
      stopOnEntry: true,
    });
    assert.equal(stopped.body.reason, 'entry');
    const threadId = Number(stopped.body.threadId);
    const threads = await threadsOf(dap);
    assert.ok(
      threads.some((t) => t.id === threadId && /main/.test(t.name)),
      JSON.stringify(threads),
    );
    const frames = await stackOf(dap, threadId);
    assert.deepEqual(
      frames.slice(0, 1).map((f) => [f.name, f.source?.path, f.line]),
      [['main', PROGRAM, lineOf(PROGRAM, 'const loop = getRunningLoop();')]],
      JSON.stringify(frames),
    );
    await dap.request('terminate', {}).catch(() => undefined);
    await dap.waitForEvent('terminated', { from, timeoutMs: 20_000 });
  });
});
