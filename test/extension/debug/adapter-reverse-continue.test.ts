// Reverse Continue to the hits of a breakpoint set after the run ended, through the standalone
// debug adapter with real DAP messages and a real runtime host: a recorded demo crawl finishes
// (the session stops at its end), a breakpoint is set in the crawler's fetch, and Reverse
// Continue stops on its last hit with that moment's frames and locals (replayed), again on the
// hit before (another URL), Continue goes forward to the later hit and then to the end; a
// conditional breakpoint; an exception filter's recorded failure; the refusal when nothing
// is hit, naming the breakpoint.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ADAPTER_SCRIPT, PROJECT_ROOT, buildAdapterAndHost } from './build-adapter';
import { DapClient, localsOf, stackOf } from './dap-client';
import { lineOf } from '../../source-line';

const CRAWLER_TS = join(PROJECT_ROOT, 'runtime', 'crawler', 'crawler.ts');

/** fetch's line after the page's links are parsed: once per page, `url` its URL. */
const PARSED = lineOf(CRAWLER_TS, 'const { stat, links } = parsed;');
/** A Location header that is not a URL: never on the demo site. */
const NEVER = lineOf(CRAWLER_TS, 'this.recordFailure(url, new HttpProtocolError(url, `invalid Location');

async function breakpoints(dap: DapClient, bps: DebugProtocol.SourceBreakpoint[]): Promise<void> {
  await dap.request('setBreakpoints', { source: { path: CRAWLER_TS }, breakpoints: bps });
}

/** Sends a move and waits for its `stopped`. */
async function moved(dap: DapClient, command: string, threadId: number): Promise<DebugProtocol.StoppedEvent['body']> {
  const from = dap.mark();
  await dap.request(command, { threadId });
  return (await dap.waitForEvent('stopped', { from, timeoutMs: 60_000 })).body as DebugProtocol.StoppedEvent['body'];
}

/** Continues until the run's end is shown again. */
async function toEnd(dap: DapClient, threadId: number): Promise<void> {
  let at = await moved(dap, 'continue', threadId);
  for (let i = 0; i < 50 && at.reason !== 'end'; i++) at = await moved(dap, 'continue', Number(at.threadId));
  assert.equal(at.reason, 'end');
}

/** At a hit: the thread's top frame (fetch on the breakpoint's line) and its locals. */
async function hitShown(dap: DapClient, stopped: DebugProtocol.StoppedEvent['body']): Promise<{ threadId: number; url: string; depth: string }> {
  assert.equal(stopped.reason, 'breakpoint', JSON.stringify(stopped));
  const threadId = Number(stopped.threadId);
  const frames = await stackOf(dap, threadId);
  assert.deepEqual(frames.slice(0, 2).map((f) => f.name), ['fetch', 'work']);
  assert.equal(frames[0]!.line, PARSED);
  assert.equal(frames[0]!.source?.path, CRAWLER_TS);
  const locals = await localsOf(dap, frames[0]!.id);
  const ev = await dap.request<DebugProtocol.EvaluateResponse['body']>('evaluate', { expression: 'url', frameId: frames[0]!.id, context: 'repl' });
  assert.equal(ev.result, locals.get('url'));
  return { threadId, url: locals.get('url') ?? '', depth: locals.get('depth') ?? '' };
}

describe('Reverse Continue to a breakpoint set after the run ended (standalone adapter)', { timeout: 180_000 }, () => {
  let dap: DapClient;
  let endThread = 0;

  before(async () => {
    await buildAdapterAndHost();
    dap = DapClient.spawn(process.execPath, [ADAPTER_SCRIPT], { cwd: PROJECT_ROOT });
    await dap.request('initialize', { clientID: 'coroscope-tests', adapterID: 'coroscope', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    const from = dap.mark();
    const launched = dap.request('launch', { type: 'coroscope', request: 'launch', name: 'demo', crawl: 'demo', pages: 12, demoLatency: 'instant', maxTasks: 3 });
    await dap.waitForEvent('initialized');
    await dap.request('setExceptionBreakpoints', { filters: [] });
    await dap.request('configurationDone');
    await launched;
    const end = await dap.waitForEvent('stopped', { from, timeoutMs: 60_000, failOn: ['terminated'] });
    assert.equal(end.body.reason, 'end');
    endThread = Number(end.body.threadId);
  });
  after(async () => {
    await dap?.close();
  });

  it('the last hit with its locals, the hit before (another URL), forward to the later hit, then the end', async () => {
    await breakpoints(dap, [{ line: PARSED }]);
    const last = await hitShown(dap, await moved(dap, 'reverseContinue', endThread));
    assert.match(last.url, /^"http:\/\/127\.0\.0\.1:\d+\//);
    assert.match(dap.outputText(), /hit a breakpoint on a past line .*crawler\.ts:\d+ \(tick \d+, replayed\)/);
    const before = await hitShown(dap, await moved(dap, 'reverseContinue', last.threadId));
    assert.notEqual(before.url, last.url);
    const forward = await hitShown(dap, await moved(dap, 'continue', before.threadId));
    assert.equal(forward.url, last.url);
    // Nothing after the last hit: Continue goes to the run's end.
    const end = await moved(dap, 'continue', forward.threadId);
    assert.equal(end.reason, 'end');
  });

  it('Step Back from a hit goes to its task\'s previous suspension; Reverse Continue from a past tick finds the hit before it', async () => {
    await breakpoints(dap, [{ line: PARSED }]);
    const last = await hitShown(dap, await moved(dap, 'reverseContinue', endThread));
    const back = await moved(dap, 'stepBack', last.threadId);
    assert.equal(back.reason, 'step');
    const frames = await stackOf(dap, last.threadId);
    assert.ok(frames.every((f) => f.line !== PARSED || f.name !== 'fetch'), 'a suspension, not the line');
    const earlier = await hitShown(dap, await moved(dap, 'reverseContinue', last.threadId));
    assert.notEqual(earlier.url, last.url);
    await toEnd(dap, earlier.threadId);
  });

  it('a conditional breakpoint: only its hits; before the first, refused naming the breakpoint', async () => {
    await breakpoints(dap, [{ line: PARSED, condition: 'depth === 0' }]);
    const root = await hitShown(dap, await moved(dap, 'reverseContinue', endThread));
    assert.equal(root.depth, '0');
    const r = await dap.requestRaw('reverseContinue', { threadId: root.threadId });
    assert.equal(r.success, false);
    assert.match(JSON.stringify(r.body), new RegExp(`no hit of the breakpoint at ${CRAWLER_TS.replace(/[.\\/]/g, (c) => `\\${c}`)}:${PARSED} before it`));
    // Still at the root's hit.
    assert.equal((await hitShown(dap, { reason: 'breakpoint', threadId: root.threadId })).url, root.url);
    await toEnd(dap, root.threadId);
  });

  it('an exception filter set now: the cancels the recording holds count too, the latest first', async () => {
    await breakpoints(dap, [{ line: PARSED }]);
    await dap.request('setExceptionBreakpoints', { filters: ['taskCancelled'] });
    // The crawl ends by cancelling its workers: after the last page's hit.
    let at = await moved(dap, 'reverseContinue', endThread);
    assert.equal(at.reason, 'goto', JSON.stringify(at));
    for (let i = 0; i < 10 && at.reason === 'goto'; i++) at = await moved(dap, 'reverseContinue', Number(at.threadId));
    const hit = await hitShown(dap, at);
    assert.match(hit.url, /^"http:/);
    await dap.request('setExceptionBreakpoints', { filters: [] });
    await toEnd(dap, hit.threadId);
  });

  it('a line that never ran: refused, naming it; without any breakpoint: refused, saying none is set', async () => {
    await breakpoints(dap, [{ line: NEVER }]);
    let r = await dap.requestRaw('reverseContinue', { threadId: endThread });
    assert.equal(r.success, false);
    assert.match(JSON.stringify(r.body), new RegExp(`no hit of the breakpoint at .*crawler\\.ts:${NEVER}`));
    await breakpoints(dap, []);
    r = await dap.requestRaw('reverseContinue', { threadId: endThread });
    assert.equal(r.success, false);
    assert.match(JSON.stringify(r.body), /no line breakpoint is set/);
  });
});
