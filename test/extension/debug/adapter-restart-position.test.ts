// A restart starts the debugger's position over (debug-position.ts onLaunched): a hit found in
// the last run's past (Reverse Continue at its end) is not kept, so at the new run's first live
// line breakpoint stop Continue goes on live (to the next page's stop), not through the past.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient } from './dap-client';
import { demoCrawl, launchToStop, localsOf, moveToStop, stackOf, startAdapter, stoppedBodyOf } from './adapter-harness';
import { lineOf } from '../../source-line';

const CRAWLER_TS = join(PROJECT_ROOT, 'runtime', 'crawler', 'crawler.ts');
/** fetch's line after the page's links are parsed: once per page. */
const PARSED = lineOf(CRAWLER_TS, 'const { stat, links } = parsed;');
const LAUNCH = demoCrawl();

async function moved(dap: DapClient, command: string, threadId: number): Promise<DebugProtocol.StoppedEvent['body']> {
  return stoppedBodyOf(await moveToStop(dap, command, { threadId }));
}

async function urlAt(dap: DapClient, threadId: number): Promise<string> {
  const frames = await stackOf(dap, threadId);
  assert.equal(frames[0]!.line, PARSED);
  return (await localsOf(dap, frames[0]!.id)).get('url') ?? '';
}

describe('restart after a hit found in the past (standalone adapter)', { timeout: 180_000 }, () => {
  let dap: DapClient;
  let endThread = 0;

  before(async () => {
    dap = await startAdapter();
    const end = await launchToStop(dap, LAUNCH, { exceptionFilters: [] });
    assert.equal(end.body.reason, 'end');
    endThread = Number(end.body.threadId);
  });
  after(async () => {
    await dap?.close();
  });

  it("the new run's live line stop is live: Continue goes on to the next page's stop", async () => {
    await dap.request('setBreakpoints', { source: { path: CRAWLER_TS }, breakpoints: [{ line: PARSED }] });
    const hit = await moved(dap, 'reverseContinue', endThread);
    assert.equal(hit.reason, 'breakpoint', JSON.stringify(hit));
    const from = dap.mark();
    await dap.request('restart', { arguments: LAUNCH });
    const first = (await dap.waitForEvent('stopped', { from, timeoutMs: 60_000, failOn: ['terminated'] }))
      .body as DebugProtocol.StoppedEvent['body'];
    const firstUrl = await urlAt(dap, Number(first.threadId));
    // Before launch reset the position, the last run's hit made this stop a past hit: refused, "already at
    // the present".
    const next = await moved(dap, 'continue', Number(first.threadId));
    assert.equal(next.reason, 'breakpoint', JSON.stringify(next));
    const nextUrl = await urlAt(dap, Number(next.threadId));
    assert.notEqual(nextUrl, firstUrl);
  });
});
