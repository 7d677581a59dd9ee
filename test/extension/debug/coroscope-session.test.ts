// extension/debug/coroscope-session.ts at the protocol level, in process, against the fake host
// (fake-debug-host.ts): the session's own decisions, not its rooms'. A request outside the supported
// set gets exactly one refusal with its reason (shown to the user), never the base class's silent
// success; what initialize advertises is what is answered; coroscope/followTask narrows its body,
// says what it does, and routes Continue to the followed task's step (stepTask) until unfollowed.
// Ordered logs compared whole (dap-log.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { FOLLOW_TASK_REQUEST } from '../../../extension/debug/custom-requests';
import { ERR_UNSUPPORTED } from '../../../extension/debug/session-core';
import { makeTask } from '../../webview/fixtures-tasks';
import { FakeRun, FakeRuns, snapshotAt } from './fake-debug-host';
import { DapClient } from './dap-client';
import { attachedInProcess, initialize } from './adapter-harness';
import { logMark, logSince } from './dap-log';

const TIMEOUT = 5000;

function session(run: FakeRun): CoroscopeSession<FakeRun> {
  return new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) });
}

/** A paused run whose one task is #3, named "fetcher". */
function pausedRun(): FakeRun {
  const run = new FakeRun('paused');
  run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
  run.endpoint.serve('snapshot', () => ({ ...snapshotAt(5, true), tasks: [makeTask(3, { name: 'fetcher' })] }));
  return run;
}

describe('CoroscopeSession', () => {
  it('refuses each unsupported request once, with its reason shown to the user', async () => {
    const dap = DapClient.inProcess(session(pausedRun()));
    try {
      await initialize(dap);
      const mark = logMark(dap);
      const refused: Array<[string, string]> = [
        ['goto', 'Coroscope cannot jump to another line: a suspended coroutine resumes only where it yielded'],
        ['restartFrame', 'Coroscope cannot restart a frame: a suspended coroutine resumes only where it yielded'],
        ['setVariable', 'Coroscope shows locals but cannot change them'],
        ['setExpression', 'Coroscope shows locals but cannot change them'],
        ['source', 'Coroscope\'s debugger does not support the "source" request'],
        ['coroscope/noSuchRequest', 'Coroscope\'s debugger does not support the "coroscope/noSuchRequest" request'],
      ];
      for (const [command] of refused) await dap.requestRaw(command, {});
      assert.deepEqual(
        logSince(dap, mark),
        refused.map(([command, format]) => ({
          response: command,
          success: false,
          error: { id: ERR_UNSUPPORTED, format, showUser: true },
        })),
      );
    } finally {
      await dap.close();
    }
  });

  it('advertises exactly the optional requests it answers', async () => {
    const dap = DapClient.inProcess(session(pausedRun()));
    try {
      const caps = (await initialize(dap)) as Record<string, unknown>;
      // Each optional request by the capability that advertises it.
      const requestOf: Record<string, string> = {
        supportsConfigurationDoneRequest: 'configurationDone',
        supportsExceptionInfoRequest: 'exceptionInfo',
        supportsTerminateRequest: 'terminate',
        supportsTerminateThreadsRequest: 'terminateThreads',
        supportsRestartRequest: 'restart',
        supportsLoadedSourcesRequest: 'loadedSources',
        supportsStepBack: 'stepBack',
        supportsDataBreakpoints: 'setDataBreakpoints',
        supportsRestartFrame: 'restartFrame',
        supportsGotoTargetsRequest: 'gotoTargets',
        supportsSetVariable: 'setVariable',
        supportsSetExpression: 'setExpression',
        supportsFunctionBreakpoints: 'setFunctionBreakpoints',
        supportsCompletionsRequest: 'completions',
        supportsStepInTargetsRequest: 'stepInTargets',
        supportsModulesRequest: 'modules',
        supportsCancelRequest: 'cancel',
        supportsReadMemoryRequest: 'readMemory',
        supportsDisassembleRequest: 'disassemble',
        supportsBreakpointLocationsRequest: 'breakpointLocations',
      };
      const advertised = Object.keys(requestOf).filter((cap) => caps[cap] === true);
      assert.deepEqual(advertised, [
        'supportsConfigurationDoneRequest',
        'supportsExceptionInfoRequest',
        'supportsTerminateRequest',
        'supportsTerminateThreadsRequest',
        'supportsRestartRequest',
        'supportsLoadedSourcesRequest',
        'supportsStepBack',
        'supportsDataBreakpoints',
      ]);
      // The ones not advertised are refused as unsupported (an advertised one may fail otherwise: no run here).
      const refusedAsUnsupported: string[] = [];
      for (const [cap, command] of Object.entries(requestOf)) {
        if (command === 'configurationDone' || command === 'terminate' || command === 'restart') continue;
        const r = await dap.requestRaw(command, {});
        const id = (r.body as { error?: { id?: unknown } } | undefined)?.error?.id;
        if (!r.success && id === ERR_UNSUPPORTED) refusedAsUnsupported.push(cap);
      }
      assert.deepEqual(
        refusedAsUnsupported,
        Object.keys(requestOf).filter((cap) => caps[cap] !== true),
      );
    } finally {
      await dap.close();
    }
  });

  it('coroscope/followTask: a bad body is refused; a task is followed, Continue steps it, null lets go', async () => {
    const run = pausedRun();
    run.endpoint.serve('stepTask', () => ({ tick: 6 }));
    run.endpoint.serve('continue', () => ({ tick: 6 }));
    const dap = await attachedInProcess(session(run), { run: run.key }, { timeoutMs: TIMEOUT });
    try {
      await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
      await dap.request('threads', {});
      const mark = logMark(dap);
      await dap.requestRaw(FOLLOW_TASK_REQUEST, { threadId: 'x' });
      await dap.requestRaw(FOLLOW_TASK_REQUEST, { threadId: 3 });
      const asked = run.endpoint.requests.length;
      await dap.requestRaw('continue', { threadId: 3 });
      const followed = run.endpoint.requests.slice(asked).map((r) => r.method);
      await dap.requestRaw(FOLLOW_TASK_REQUEST, { threadId: null });
      assert.deepEqual(logSince(dap, mark, ['output']), [
        {
          response: FOLLOW_TASK_REQUEST,
          success: false,
          error: {
            id: ERR_UNSUPPORTED,
            format: `${FOLLOW_TASK_REQUEST}: "threadId" must be a task's thread id or null`,
            showUser: false,
          },
        },
        {
          event: 'output',
          category: 'console',
          output:
            'Coroscope: following fetcher: Continue, Reverse Continue and Step Over go to its next (previous) line or suspension, whatever other tasks run meanwhile\n',
        },
        { response: FOLLOW_TASK_REQUEST, success: true },
        { response: 'continue', success: true },
        {
          event: 'output',
          category: 'console',
          output: 'Coroscope: no task followed: Continue, Reverse Continue and Step Over move every task again\n',
        },
        { response: FOLLOW_TASK_REQUEST, success: true },
      ]);
      assert.deepEqual(followed, ['stepTask']);
      assert.deepEqual(
        run.endpoint.requests.filter((r) => r.method === 'stepTask').map((r) => r.params),
        [{ taskId: 3, oneTask: true }],
      );
      const before = run.endpoint.requests.length;
      await dap.requestRaw('continue', { threadId: 3 });
      assert.deepEqual(
        run.endpoint.requests.slice(before).map((r) => r.method),
        ['continue'],
      );
    } finally {
      await dap.close();
    }
  });
});
