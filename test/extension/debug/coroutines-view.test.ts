// extension/debug/coroutines-view.ts against a real adapter session (a CoroscopeSession on the fake
// host, fake-debug-host.ts) through a stub of the editor's API (vscode-stub.ts): the Coroutines
// view asks the active coroscope session for its tasks (`coroscope/tasks`), at most one request in
// flight (a refresh asked meanwhile is done once it answers); no session, a session of another
// type, or a failed request show an empty tree with a message, never an error.

import './vscode-stub';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { TASKS_REQUEST } from '../../../extension/debug/custom-requests';
import { CoroutinesTreeProvider } from '../../../extension/debug/coroutines-view';
import type { Snapshot } from '../../../protocol/host-protocol';
import { makeTask } from '../../webview/fixtures-tasks';
import { FakeRun, FakeRuns, snapshotAt } from './fake-debug-host';
import type { DapClient } from './dap-client';
import { attachedInProcess } from './adapter-harness';
import { type StubDebugSession, stubDebug } from './vscode-stub';
import { until } from '../wait-until';

const TIMEOUT = 5000;

/** What the view shows: its message line, its description and its top rows' labels. */
interface Shown {
  message: string | undefined;
  description: string | undefined;
  rows: string[];
}

/** The view's provider with a view object that records its message and description. */
function viewOf(): { provider: CoroutinesTreeProvider; shown: () => Shown } {
  const provider = new CoroutinesTreeProvider();
  const view = { message: undefined as string | undefined, description: undefined as string | undefined };
  provider.view = view as unknown as CoroutinesTreeProvider['view'];
  return {
    provider,
    shown: () => ({
      message: view.message,
      description: view.description,
      rows: provider.getChildren().map((n) => String(provider.getTreeItem(n).label)),
    }),
  };
}

/** The view's redraws: resolves at the next one. */
function redrawn(provider: CoroutinesTreeProvider): Promise<void> {
  return new Promise((resolve) => {
    const d = provider.onDidChangeTreeData(() => {
      d.dispose();
      resolve();
    });
  });
}

/** A session attached to a live paused run of two suspended tasks and one done, as VS Code's session object. */
async function sessionOnRun(): Promise<{ dap: DapClient; session: StubDebugSession & { asked: number } }> {
  const run = new FakeRun('paused');
  run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
  const snapshot: Snapshot = {
    ...snapshotAt(5, true),
    tasks: [
      makeTask(2, { state: 'suspended', awaiting: null }),
      makeTask(3, { state: 'suspended', awaiting: null }),
      makeTask(4, { state: 'done', awaiting: null }),
    ],
  };
  run.endpoint.serve('snapshot', () => snapshot);
  const dap = await attachedInProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
    { run: run.key },
    { timeoutMs: TIMEOUT },
  );
  await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
  const session = {
    type: 'coroscope',
    asked: 0,
    customRequest(command: string, args?: unknown): Promise<unknown> {
      session.asked++;
      return dap.request(command, args);
    },
  };
  return { dap, session };
}

describe('coroutines view', () => {
  it("shows the active session's tasks by state, with the loop's tick", async () => {
    const { dap, session } = await sessionOnRun();
    const { provider, shown } = viewOf();
    try {
      stubDebug.activeDebugSession = session;
      const drawn = redrawn(provider);
      provider.refresh();
      await drawn;
      assert.deepEqual(shown(), {
        message: '2 live tasks · tick 5 · paused',
        description: '3 tasks',
        rows: ['suspended (2)', 'done (1)'],
      });
    } finally {
      provider.dispose();
      stubDebug.activeDebugSession = undefined;
      await dap.close();
    }
  });

  it('one request in flight: the refreshes asked meanwhile are one more request once it answers', async () => {
    const { dap, session } = await sessionOnRun();
    const { provider, shown } = viewOf();
    // Each request to the session is held until the test lets it through.
    const waiting: Array<() => void> = [];
    const held = {
      type: 'coroscope',
      asked: 0,
      customRequest(command: string, args?: unknown): Promise<unknown> {
        held.asked++;
        return new Promise((resolve) => waiting.push(() => resolve(session.customRequest(command, args))));
      },
    };
    try {
      stubDebug.activeDebugSession = held;
      provider.refresh();
      provider.refresh();
      provider.refresh();
      assert.equal(held.asked, 1, 'one request in flight');
      waiting.shift()?.();
      await until('the refreshes asked meanwhile, asked once', () => held.asked === 2, TIMEOUT);
      const drawn = redrawn(provider);
      waiting.shift()?.();
      await drawn;
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(held.asked, 2, 'nothing asked after the last answer');
      assert.equal(shown().message, '2 live tasks · tick 5 · paused');
    } finally {
      provider.dispose();
      stubDebug.activeDebugSession = undefined;
      await dap.close();
    }
  });

  it('no session, another type, or a failed request: an empty tree with a message', async () => {
    const { provider, shown } = viewOf();
    try {
      const cases: Array<[StubDebugSession | undefined, Shown]> = [
        [
          undefined,
          { message: 'Start a Coroscope debug session to see its coroutines.', description: undefined, rows: [] },
        ],
        [
          { type: 'node', customRequest: () => Promise.resolve({}) },
          { message: 'Start a Coroscope debug session to see its coroutines.', description: undefined, rows: [] },
        ],
        [
          { type: 'coroscope', customRequest: () => Promise.reject(new Error(`${TASKS_REQUEST} failed: no run`)) },
          { message: `No tasks: ${TASKS_REQUEST} failed: no run`, description: undefined, rows: [] },
        ],
        [
          { type: 'coroscope', customRequest: () => Promise.resolve({ nothing: true }) },
          { message: 'The debug adapter sent no tasks.', description: undefined, rows: [] },
        ],
      ];
      for (const [session, expected] of cases) {
        stubDebug.activeDebugSession = session;
        const drawn = redrawn(provider);
        provider.refresh();
        await drawn;
        assert.deepEqual(shown(), expected, session?.type ?? 'no session');
      }
    } finally {
      provider.dispose();
      stubDebug.activeDebugSession = undefined;
    }
  });
});
