// The Deadlock exception filter through the STANDALONE debug adapter over DAP (issue 27): a
// program whose two tasks take two Locks in opposite order (fixtures/lock-order-deadlock.ts)
// stops, without any breakpoint, with reason 'exception' and a description naming the
// cycle and both locks by their variable names; exceptionInfo gives the details (each lock's
// holder and the line where it took it); the adapter sends `coroscope/deadlock` for the
// extension's notification. The filter is on by default (initialize lists it so).

import assert from 'node:assert/strict';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { DapClient } from './dap-client';
import { initialize, spawnAdapter, stackOf, startDebugging, tasksOf } from './adapter-harness';
import { lineOf } from '../../source-line';

const PROGRAM = join(__dirname, 'fixtures', 'lock-order-deadlock.ts');
const NAME = basename(PROGRAM);

async function launch(dap: DapClient, filters: string[] | null): Promise<void> {
  await startDebugging(
    dap,
    'launch',
    { type: 'coroscope', request: 'launch', name: 'deadlock', program: PROGRAM },
    filters === null ? {} : { exceptionFilters: filters },
  );
}

describe('the Deadlock exception filter', { timeout: 90_000 }, () => {
  let dap: DapClient;
  let capabilities: DebugProtocol.Capabilities;

  before(async () => {
    dap = await spawnAdapter();
    capabilities = await initialize(dap);
  });

  after(async () => {
    await dap?.close();
  });

  it('is offered, on by default', () => {
    const filter = capabilities.exceptionBreakpointFilters?.find((f) => f.filter === 'deadlock');
    assert.equal(filter?.label, 'Deadlock');
    assert.equal(filter?.default, true);
  });

  it('stops a lock-order deadlock, naming both locks, their holders and acquire lines', async () => {
    const from = dap.mark();
    await launch(dap, ['taskFailed', 'deadlock']);
    const stopped = await dap.waitForEvent('stopped', { from, failOn: ['terminated'], timeoutMs: 30_000 });
    assert.equal(stopped.body.reason, 'exception', dap.outputText().slice(-800));
    assert.equal(stopped.body.text, 'Deadlock');
    const description = String(stopped.body.description);
    assert.match(
      description,
      /^Deadlock: lock-order cycle: (transfer → audit → transfer|audit → transfer → audit) over (ledger, auditLog|auditLog, ledger)$/,
    );
    const notice = dap.events.slice(from).find((e) => e.event === 'coroscope/deadlock');
    assert.ok(notice !== undefined, 'no coroscope/deadlock event');
    assert.equal(notice.body.summary, description.replace(/^Deadlock: /, ''));

    const info = await dap.request<DebugProtocol.ExceptionInfoResponse['body']>('exceptionInfo', {
      threadId: Number(stopped.body.threadId),
    });
    assert.equal(info.exceptionId, 'Deadlock');
    const details = info.details?.stackTrace ?? '';
    const ledgerAt = `${NAME}:${lineOf(PROGRAM, 'const ledger = new Lock();')}`;
    const auditLogAt = `${NAME}:${lineOf(PROGRAM, 'const auditLog = new Lock();')}`;
    const transferTook = `${NAME}:${lineOf(PROGRAM, '// transfer takes the ledger')}`;
    const auditTook = `${NAME}:${lineOf(PROGRAM, '// audit takes the audit log')}`;
    // Each task waits for the lock the other holds, named by its variable, with where the holder took it.
    assert.match(
      details,
      new RegExp(
        `"transfer" waits on lock auditLog \\(Lock, ${auditLogAt.replace('.', '\\.')}\\), held by Task #\\d+ "audit" since ${auditTook.replace('.', '\\.')}`,
      ),
      details,
    );
    assert.match(
      details,
      new RegExp(
        `"audit" waits on lock ledger \\(Lock, ${ledgerAt.replace('.', '\\.')}\\), held by Task #\\d+ "transfer" since ${transferTook.replace('.', '\\.')}`,
      ),
      details,
    );
    // Where each task waits: its own frame at its second acquire, in its thread's stack.
    const { tasks } = await tasksOf(dap);
    for (const [task, line] of [
      ['transfer', lineOf(PROGRAM, '// transfer waits for the audit log')],
      ['audit', lineOf(PROGRAM, '// audit waits for the ledger')],
    ] as const) {
      const id = tasks.find((t) => t.name === task)?.id ?? assert.fail(`no task ${task}`);
      const own = (await stackOf(dap, id)).find((f) => f.name === task);
      assert.deepEqual(own && [own.source?.path, own.line], [PROGRAM, line], task);
    }
    assert.match(dap.outputText(), /Deadlock: lock-order cycle/);
    await dap.request('terminate', {}).catch(() => undefined);
    await dap.waitForEvent('terminated', { from, timeoutMs: 20_000 });
  });
});
