// The debugger's Task scope says where a task was created at every moment (issue 26, item 4),
// through the standalone debug adapter over stdio: the generators sample stepped two ticks on
// the loop's thread, then one tick back (replayed from the recording): the task's "created
// at" is the file and line it says live (the sample's line that starts it) (the panel's detail says it so
// too: the host's
// taskDetail serves both), and its stack still ends with its creation.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DapClient } from './dap-client';
import { launchToStop, moveToStop, scopeOf, stackOf, startAdapter, threadsOf } from './adapter-harness';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { lineOf } from '../../source-line';
import { PROJECT_ROOT } from './build-adapter';

const GENERATORS_TS = join(PROJECT_ROOT, 'runtime', 'samples', 'generators.ts');

describe('the Task scope at a past tick', { timeout: 120_000 }, () => {
  let dap: DapClient;
  before(async () => {
    dap = await startAdapter();
  });
  after(async () => {
    await dap?.close();
  });

  async function move(command: string): Promise<void> {
    await moveToStop(dap, command, { threadId: LOOP_THREAD_ID });
  }

  /** The Task scope of the task's top frame, by name; and the names of its stack's frames. */
  async function taskScope(taskId: number): Promise<{ vars: Map<string, string>; frames: string[] }> {
    const frames = await stackOf(dap, taskId);
    const { variables } = await scopeOf(dap, frames[0]!.id, 'Task');
    return { vars: new Map([...variables].map(([n, v]) => [n, v.value])), frames: frames.map((f) => f.name) };
  }

  it('says the creation site live and replayed alike', async () => {
    await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'task scope', sample: 'generators', stopOnEntry: true },
      { exceptionFilters: [] },
    );
    await move('next');
    await move('next');
    const threads = await threadsOf(dap);
    const taskId = threads.find((t) => t.id !== LOOP_THREAD_ID)!.id;
    const live = await taskScope(taskId);
    const site = live.vars.get('created at') ?? '';
    // The sample's own line that starts its task (runOnLoop is the samples' machinery, as the runtime's own files are).
    assert.equal(
      site,
      `generators.ts:${lineOf(GENERATORS_TS, 'await runOnLoop(ctx.loop, tour(t), tour.name);')}`,
      'the live task says where the sample created it',
    );

    await move('stepBack');
    const past = await taskScope(taskId);
    assert.equal(past.vars.get('created at'), site, [...past.vars].join(', '));
    assert.equal(
      past.frames[past.frames.length - 1],
      live.frames[live.frames.length - 1],
      `the stack ends with the creation: ${past.frames.join(' < ')}`,
    );
  });
});
