// Tests of the session's breakpoints room (extension/debug/session-breakpoints.ts) at the protocol
// level: DAP setBreakpoints / setExceptionBreakpoints in, the host requests (fake-debug-host.ts) and
// the DAP answers and `breakpoint` events out, compared as structured data. Before the host exists
// breakpoints are kept, answered unverified, and applied at launch with their ids; on a running
// host they go straight to it, and the answer is the host's (its line, its verdict).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import type { HostMethods } from '../../../protocol/host-protocol';
import { FakeRun, FakeRuns } from './fake-debug-host';
import { DapClient } from './dap-client';
import { initialize, startDebugging } from './adapter-harness';

const TIMEOUT = 5000;
const FILE = '/work/prog.ts';
const LAUNCH = { type: 'coroscope', request: 'launch', name: 'x', sample: 'generators' };

type SetBreakpointsParams = HostMethods['setBreakpoints']['params'];
type SetBreakpointsBody = DebugProtocol.SetBreakpointsResponse['body'];

/** A launchable fake run whose host verifies every breakpoint but those on `refusedLines`, moving none. */
function fakeRun(refusedLines: number[] = []): FakeRun {
  const run = new FakeRun('running');
  const ep = run.endpoint;
  ep.serve('launch', () => ({ runId: 8, heldAtEntry: false }));
  ep.serve('setExceptionBreaks', () => ({}));
  ep.serve('setLineStepMode', () => ({}));
  ep.serve('setBreakpoints', (p) => ({
    breakpoints: p.breakpoints.map((b) =>
      refusedLines.includes(b.line)
        ? { file: b.file, verified: false, line: b.line, message: 'no code on this line' }
        : { file: b.file, verified: true, line: b.line },
    ),
  }));
  return run;
}

function session(run: FakeRun): DapClient {
  return DapClient.inProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run, true) }),
  );
}

function paramsOf<T>(run: FakeRun, method: string): T[] {
  return run.endpoint.requests.filter((r) => r.method === method).map((r) => r.params as T);
}

describe('session breakpoints', () => {
  it('set before launch: kept and answered unverified, then applied at launch under the same ids', async () => {
    const run = fakeRun([14]);
    const dap = session(run);
    try {
      await initialize(dap);
      const kept = await dap.request<SetBreakpointsBody>('setBreakpoints', {
        source: { path: FILE },
        breakpoints: [
          { line: 12, condition: 'n > 2', hitCondition: '' },
          { line: 14, logMessage: 'n={n}' },
        ],
      });
      assert.deepEqual(kept.breakpoints, [
        { id: 1, verified: false, line: 12, message: 'set when the run starts' },
        { id: 2, verified: false, line: 14, message: 'set when the run starts' },
      ]);
      assert.deepEqual(paramsOf(run, 'setBreakpoints'), [], 'no host yet: nothing asked');

      const from = dap.mark();
      await startDebugging(dap, 'launch', LAUNCH, { timeoutMs: TIMEOUT });
      // Empty fields are left out; a breakpoint on a `yield*` line stops before it.
      assert.deepEqual(paramsOf<SetBreakpointsParams>(run, 'setBreakpoints'), [
        {
          file: FILE,
          breakpoints: [
            { file: FILE, line: 12, condition: 'n > 2' },
            { file: FILE, line: 14, logMessage: 'n={n}' },
          ],
          yieldLines: 'before',
        },
      ]);
      const changed = dap.events
        .slice(from)
        .filter((e) => e.event === 'breakpoint')
        .map((e) => e.body as DebugProtocol.BreakpointEvent['body']);
      assert.deepEqual(changed, [
        { reason: 'changed', breakpoint: { id: 1, verified: true, line: 12, source: { path: FILE } } },
        {
          reason: 'changed',
          breakpoint: { id: 2, verified: false, line: 14, source: { path: FILE }, message: 'no code on this line' },
        },
      ]);
      assert.ok(
        run.endpoint.asked().indexOf('setExceptionBreaks') < run.endpoint.asked().indexOf('setBreakpoints'),
        'the exception filters go first',
      );
    } finally {
      await dap.close();
    }
  });

  it('set on a running host: sent at once, answered with the host verdict and fresh ids', async () => {
    const run = fakeRun([20]);
    const dap = session(run);
    try {
      await initialize(dap);
      await startDebugging(dap, 'launch', LAUNCH, { timeoutMs: TIMEOUT });
      const answer = await dap.request<SetBreakpointsBody>('setBreakpoints', {
        source: { path: FILE, name: 'prog.ts' },
        lines: [3, 20],
      });
      assert.deepEqual(answer.breakpoints, [
        { id: 1, verified: true, line: 3, source: { path: FILE, name: 'prog.ts' } },
        { id: 2, verified: false, line: 20, source: { path: FILE, name: 'prog.ts' }, message: 'no code on this line' },
      ]);
      assert.deepEqual(paramsOf<SetBreakpointsParams>(run, 'setBreakpoints'), [
        {
          file: FILE,
          breakpoints: [
            { file: FILE, line: 3 },
            { file: FILE, line: 20 },
          ],
          yieldLines: 'before',
        },
      ]);
      const again = await dap.request<SetBreakpointsBody>('setBreakpoints', { source: { path: FILE }, lines: [3] });
      assert.deepEqual(
        again.breakpoints.map((b) => b.id),
        [3],
        'ids are never reused',
      );
    } finally {
      await dap.close();
    }
  });

  it('a source with no path is refused without asking the host', async () => {
    const run = fakeRun();
    const dap = session(run);
    try {
      await initialize(dap);
      await startDebugging(dap, 'launch', LAUNCH, { timeoutMs: TIMEOUT });
      const answer = await dap.request<SetBreakpointsBody>('setBreakpoints', {
        source: { sourceReference: 5 },
        breakpoints: [{ line: 1 }],
      });
      assert.deepEqual(answer.breakpoints, [
        { id: 1, verified: false, line: 1, message: 'Coroscope only sets breakpoints in files on disk' },
      ]);
      assert.deepEqual(paramsOf(run, 'setBreakpoints'), []);
    } finally {
      await dap.close();
    }
  });

  it('exception filters: kept before launch and sent at it; sent at once on a running host', async () => {
    type Breaks = HostMethods['setExceptionBreaks']['params'];
    const run = fakeRun();
    const dap = session(run);
    try {
      await initialize(dap);
      const before = await dap.request<DebugProtocol.SetExceptionBreakpointsResponse['body']>(
        'setExceptionBreakpoints',
        { filters: ['taskCancelled'], filterOptions: [{ filterId: 'urlFailed' }] },
      );
      assert.deepEqual(before?.breakpoints, [{ verified: true }, { verified: true }]);
      assert.deepEqual(paramsOf(run, 'setExceptionBreaks'), [], 'no host yet');
      await startDebugging(dap, 'launch', LAUNCH, { timeoutMs: TIMEOUT });
      assert.deepEqual(paramsOf<Breaks>(run, 'setExceptionBreaks'), [
        { taskFailed: false, taskCancelled: true, urlFailed: true, deadlock: false },
      ]);
      await dap.request('setExceptionBreakpoints', { filters: ['taskFailed', 'deadlock'] });
      assert.deepEqual(paramsOf<Breaks>(run, 'setExceptionBreaks').at(-1), {
        taskFailed: true,
        taskCancelled: false,
        urlFailed: false,
        deadlock: true,
      });
    } finally {
      await dap.close();
    }
  });
});
