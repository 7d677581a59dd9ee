// Reverse Continue to the hits of a breakpoint set after the run ended, through the standalone
// debug adapter with real DAP messages and a real runtime host: a recorded demo crawl finishes
// (the session stops at its end), a breakpoint is set in the crawler's fetch, and Reverse
// Continue stops on its last hit with that moment's frames and locals (replayed), again on the
// hit before (another URL), Continue goes forward to the later hit and then to the end; from a
// hit, the steps go by line through the hit task's replayed lines (next, over a `yield*` that
// suspends to the task's next line in a later tick, step in, step out, step back to the line
// before and, before the task's first line of the step, the last line of its step before); a
// conditional breakpoint; an exception filter's recorded failure; the refusal when nothing
// is hit, naming the breakpoint. At a live line stop, Continue from a past hit to a later hit
// of another breakpoint (a forward search's first hit): the Threads are that moment's.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { ERR_HOST } from '../../../extension/debug/session-core';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient } from './dap-client';
import {
  demoCrawl,
  launchToStop,
  localsOf,
  moveToStop,
  outputSince,
  stackOf,
  startAdapter,
  stoppedBodyOf,
  tasksOf,
  threadsOf,
} from './adapter-harness';

const CRAWLER_TS = join(PROJECT_ROOT, 'runtime', 'crawler', 'crawler.ts');
const SESSION_TS = join(PROJECT_ROOT, 'runtime', 'http', 'client-session.ts');

/** fetch's line after the page's links are parsed: once per page, `url` its URL. */
const PARSED = lineOf(CRAWLER_TS, 'const { stat, links } = parsed;');
/** fetch's lines before and after its GET, which suspends the task. */
const DECL = lineOf(CRAWLER_TS, 'let response: ClientResponse | null = null;');
const FOR = lineOf(CRAWLER_TS, 'for (let tries = 1; ; tries++) {', DECL);
const GET = lineOf(CRAWLER_TS, 'response = yield* this.session.get(url, NO_REDIRECTS);');
const BREAK = lineOf(CRAWLER_TS, 'break;', GET);
/** fetch's line before PARSED in the hit's tick: where parseLinks returned to. */
const PARSE_LINKS = lineOf(CRAWLER_TS, 'parsed = yield* this.parseLinks(response, url);');
const READ_BODY = lineOf(CRAWLER_TS, 'const body = yield* response.read();');
/** A Location header that is not a URL: never on the demo site. */
const NEVER = lineOf(CRAWLER_TS, 'this.recordFailure(url, new HttpProtocolError(url, `invalid Location');

async function breakpoints(dap: DapClient, bps: DebugProtocol.SourceBreakpoint[]): Promise<void> {
  await dap.request('setBreakpoints', { source: { path: CRAWLER_TS }, breakpoints: bps });
}

/** Sends a move and waits for its `stopped`. */
async function moved(dap: DapClient, command: string, threadId: number): Promise<DebugProtocol.StoppedEvent['body']> {
  return stoppedBodyOf(await moveToStop(dap, command, { threadId }));
}

/** The body of a move the host refused, as the client shows it to the user. */
function refusal(format: string): DebugProtocol.ErrorResponse['body'] {
  return { error: { id: ERR_HOST, format, showUser: true } };
}

/** The name a task's thread starts with ("worker-2" of "worker-2 [running: line 219]"). */
async function taskNameOf(dap: DapClient, threadId: number): Promise<string> {
  const name = (await threadsOf(dap)).find((t) => t.id === threadId)?.name ?? '';
  return name.slice(0, name.indexOf(' ['));
}

/** Continues until the run's end is shown again. */
async function toEnd(dap: DapClient, threadId: number): Promise<void> {
  let at = await moved(dap, 'continue', threadId);
  for (let i = 0; i < 50 && at.reason !== 'end'; i++) at = await moved(dap, 'continue', Number(at.threadId));
  assert.equal(at.reason, 'end');
}

/** At a hit: the thread's top frame (fetch on the breakpoint's line) and its locals. */
async function hitShown(
  dap: DapClient,
  stopped: DebugProtocol.StoppedEvent['body'],
): Promise<{ threadId: number; url: string; depth: string }> {
  assert.equal(stopped.reason, 'breakpoint', JSON.stringify(stopped));
  const threadId = Number(stopped.threadId);
  const frames = await stackOf(dap, threadId);
  assert.deepEqual(
    frames.slice(0, 2).map((f) => f.name),
    ['fetch', 'work'],
  );
  assert.equal(frames[0]!.line, PARSED);
  assert.equal(frames[0]!.source?.path, CRAWLER_TS);
  const locals = await localsOf(dap, frames[0]!.id);
  const ev = await dap.request<DebugProtocol.EvaluateResponse['body']>('evaluate', {
    expression: 'url',
    frameId: frames[0]!.id,
    context: 'repl',
  });
  assert.equal(ev.result, locals.get('url'));
  return { threadId, url: locals.get('url') ?? '', depth: locals.get('depth') ?? '' };
}

describe('Reverse Continue to a breakpoint set after the run ended (standalone adapter)', { timeout: 180_000 }, () => {
  let dap: DapClient;
  let endThread = 0;

  before(async () => {
    dap = await startAdapter();
    const end = await launchToStop(dap, demoCrawl(), { exceptionFilters: [] });
    assert.equal(end.body.reason, 'end');
    endThread = Number(end.body.threadId);
  });
  after(async () => {
    await dap?.close();
  });

  it('the last hit with its locals, the hit before (another URL), forward to the later hit, then the end', async () => {
    await breakpoints(dap, [{ line: PARSED }]);
    const from = dap.mark();
    const last = await hitShown(dap, await moved(dap, 'reverseContinue', endThread));
    assert.match(last.url, /^"http:\/\/127\.0\.0\.1:\d+\//);
    assert.equal(
      outputSince(dap, from),
      `Coroscope: ${await taskNameOf(dap, last.threadId)} hit a breakpoint on a past line at ${CRAWLER_TS}:${PARSED} (tick ${(await tasksOf(dap)).tick}, replayed)\n`,
    );
    const before = await hitShown(dap, await moved(dap, 'reverseContinue', last.threadId));
    assert.notEqual(before.url, last.url);
    const forward = await hitShown(dap, await moved(dap, 'continue', before.threadId));
    assert.equal(forward.url, last.url);
    // Nothing after the last hit: Continue goes to the run's end.
    const end = await moved(dap, 'continue', forward.threadId);
    assert.equal(end.reason, 'end');
  });

  it("Step Back from a hit goes to its task's line before, then (before its first line of the step) to the last line of its step before, in an earlier tick; Reverse Continue from there finds the hit before it", async () => {
    await breakpoints(dap, [{ line: PARSED }]);
    const last = await hitShown(dap, await moved(dap, 'reverseContinue', endThread));
    const lastTick = (await tasksOf(dap)).tick;
    let back = await moved(dap, 'stepBack', last.threadId);
    assert.equal(back.reason, 'step');
    assert.equal(Number(back.threadId), last.threadId);
    let frames = await stackOf(dap, last.threadId);
    assert.deepEqual(
      frames.slice(0, 2).map((f) => `${f.name}:${f.line}`),
      [`fetch:${PARSE_LINKS}`, `work:${frames[1]!.line}`],
    );
    assert.equal((await localsOf(dap, frames[0]!.id)).get('url'), last.url);
    // Back through the task's earlier lines of the step, and before its first line, into its step before (an
    // earlier tick: the line where it suspended).
    let said = '';
    for (let i = 0; i < 20 && !/the last line of its step at tick \d+/.test(said); i++) {
      const from = dap.mark();
      back = await moved(dap, 'stepBack', last.threadId);
      assert.equal(back.reason, 'step');
      assert.equal(Number(back.threadId), last.threadId);
      said = outputSince(dap, from);
      // On a past line: the task's real frame, on a line of crawler.ts (the stack's top frame says where).
      assert.equal((await stackOf(dap, last.threadId))[0]!.source?.path, CRAWLER_TS);
    }
    frames = await stackOf(dap, last.threadId);
    assert.equal(frames[0]!.source?.path, CRAWLER_TS);
    const stepTick = (await tasksOf(dap)).tick;
    assert.ok(stepTick < lastTick, `${stepTick} < ${lastTick}`);
    assert.equal(
      said,
      `Coroscope: ${await taskNameOf(dap, last.threadId)} on a past line at ${CRAWLER_TS}:${frames[0]!.line} (tick ${stepTick}, replayed): the last line of its step at tick ${stepTick}, before its step at tick ${lastTick}\n`,
    );
    // Where the task suspended: fetch's GET (a small page's body comes with its head), else parseLinks' read.
    const suspendedAt = [frames[0]!.name, frames[0]!.line];
    assert.ok([`fetch:${GET}`, `parseLinks:${READ_BODY}`].includes(suspendedAt.join(':')), JSON.stringify(suspendedAt));
    const earlier = await hitShown(dap, await moved(dap, 'reverseContinue', last.threadId));
    assert.notEqual(earlier.url, last.url);
    await toEnd(dap, earlier.threadId);
  });

  it("from a hit, next / step in / step out go by line: over a yield* that suspends to the task's next line in a later tick, into the call a line makes, out of it; step back across the suspension; continue to the next hit", async () => {
    // The last fetch of a content page (an HTML 200): its own task parses it after the steps below, so a later
    // hit is certain. The run's last fetch is a redirect, and whether another task parses a page after it
    // depends on the /slow/ pages' wall-clock delay against the crawl's speed (under load: not).
    await breakpoints(dap, [{ line: DECL, condition: String.raw`/\/page\/\d+\/$/.test(url)` }]);
    const hit = await moved(dap, 'reverseContinue', endThread);
    assert.equal(hit.reason, 'breakpoint');
    const threadId = Number(hit.threadId);
    const top = async (): Promise<DebugProtocol.StackFrame[]> => stackOf(dap, threadId);
    const hitFrames = await top();
    assert.equal(hitFrames[0]!.line, DECL);
    const url = (await localsOf(dap, hitFrames[0]!.id)).get('url');
    const stepped = async (command: string): Promise<DebugProtocol.StackFrame[]> => {
      const at = await moved(dap, command, threadId);
      assert.equal(at.reason, 'step', JSON.stringify(at));
      assert.equal(Number(at.threadId), threadId);
      return top();
    };
    let frames = await stepped('next');
    assert.deepEqual(
      frames.slice(0, 2).map((f) => f.name),
      ['fetch', 'work'],
    );
    assert.equal(frames[0]!.line, FOR);
    frames = await stepped('next');
    assert.equal(frames[0]!.line, GET);
    assert.equal((await localsOf(dap, frames[0]!.id)).get('response'), 'null');
    const getTick = (await tasksOf(dap)).tick;
    // Over the GET, which suspends the task: its next line once resumed (the same task, a later tick).
    frames = await stepped('next');
    assert.equal(frames[0]!.line, BREAK);
    const locals = await localsOf(dap, frames[0]!.id);
    assert.equal(locals.get('response'), 'ClientResponse');
    assert.equal(locals.get('url'), url);
    const resumedTick = (await tasksOf(dap)).tick;
    assert.ok(resumedTick > getTick, `resumed at tick ${resumedTick}, after the GET's tick ${getTick}`);
    // Back across the suspension: the GET's line, before its response.
    frames = await stepped('stepBack');
    assert.equal(frames[0]!.line, GET);
    assert.equal((await localsOf(dap, frames[0]!.id)).get('response'), 'null');
    // Into the call the line makes: the session's get, as it ran then; out again to fetch.
    frames = await stepped('stepIn');
    assert.equal(frames[0]!.source?.path, SESSION_TS);
    assert.deepEqual(
      frames.slice(0, 3).map((f) => f.name),
      ['get', 'fetch', 'work'],
    );
    frames = await stepped('stepOut');
    assert.equal(frames[0]!.name, 'fetch');
    assert.ok(frames[0]!.line === GET || frames[0]!.line === BREAK, `${frames[0]!.line}`);
    // Continue: the next hit (another URL), then the end.
    await breakpoints(dap, [{ line: PARSED }]);
    const next = await hitShown(dap, await moved(dap, 'continue', threadId));
    assert.ok(next.url !== '');
    await breakpoints(dap, []);
    await toEnd(dap, next.threadId);
  });

  it('a conditional breakpoint: only its hits; before the first, refused naming the breakpoint', async () => {
    await breakpoints(dap, [{ line: PARSED, condition: 'depth === 0' }]);
    const root = await hitShown(dap, await moved(dap, 'reverseContinue', endThread));
    assert.equal(root.depth, '0');
    const rootTick = (await tasksOf(dap)).tick;
    const r = await dap.requestRaw('reverseContinue', { threadId: root.threadId });
    assert.equal(r.success, false);
    assert.deepEqual(
      r.body,
      refusal(
        `Reverse Continue: no stop at a breakpoint or an exception before tick ${rootTick} in the recording (exception filters: none), and no hit of the breakpoint at ${CRAWLER_TS}:${PARSED} before it (replayed)`,
      ),
    );
    // Still at the root's hit.
    assert.equal((await hitShown(dap, { reason: 'breakpoint', threadId: root.threadId })).url, root.url);
    await toEnd(dap, root.threadId);
  });

  it('an exception filter set now: the cancels the recording holds count too, the latest first', async () => {
    await breakpoints(dap, [{ line: PARSED }]);
    await dap.request('setExceptionBreakpoints', { filters: ['taskCancelled'] });
    // The crawl ends by cancelling its workers: after the last page's hit.
    // Each shown as the live stop was: an exception (a cancel's), 'Paused on task cancelled'.
    let at = await moved(dap, 'reverseContinue', endThread);
    assert.equal(at.reason, 'exception', JSON.stringify(at));
    assert.equal(at.description, 'Paused on task cancelled');
    for (let i = 0; i < 10 && at.reason === 'exception'; i++)
      at = await moved(dap, 'reverseContinue', Number(at.threadId));
    const hit = await hitShown(dap, at);
    assert.match(hit.url, /^"http:/);
    await dap.request('setExceptionBreakpoints', { filters: [] });
    await toEnd(dap, hit.threadId);
  });

  it('a breakpoint on a yield* line (a line stop before it runs, issue 26): Reverse Continue lands on its last hit, on that worker with fetch at the line, then the hit before; Continue goes forward to the last again, then the end', async () => {
    await breakpoints(dap, [{ line: GET }]);
    const landed = async (
      command: string,
      threadId: number,
    ): Promise<{ threadId: number; tick: number; url: string }> => {
      const from = dap.mark();
      const at = await moved(dap, command, threadId);
      assert.equal(at.reason, 'breakpoint', JSON.stringify(at));
      const said = dap.events
        .slice(from)
        .filter((e) => e.event === 'output')
        .map((e) => String(e.body.output))
        .join('');
      // A hit of a line breakpoint in the past: the line not run yet (the GET not sent), and the tick.
      const m = new RegExp(
        `worker-\\d+ hit a breakpoint on a past line at .*crawler\\.ts:${GET} \\(tick (\\d+), replayed`,
      ).exec(said);
      assert.ok(m !== null, said);
      const frames = await stackOf(dap, Number(at.threadId));
      assert.deepEqual(
        frames.slice(0, 2).map((f) => f.name),
        ['fetch', 'work'],
      );
      assert.equal(frames[0]!.line, GET);
      assert.equal(frames[0]!.source?.path, CRAWLER_TS);
      const locals = await localsOf(dap, frames[0]!.id);
      assert.equal(locals.get('response'), 'null', 'before the line ran');
      const url = locals.get('url') ?? '';
      assert.match(url, /^"http:/);
      return { threadId: Number(at.threadId), tick: Number(m[1]), url };
    };
    const last = await landed('reverseContinue', endThread);
    const before = await landed('reverseContinue', last.threadId);
    assert.ok(before.tick <= last.tick, `${before.tick} <= ${last.tick}`);
    assert.notEqual(before.url, last.url);
    assert.deepEqual(await landed('continue', before.threadId), last);
    await breakpoints(dap, []);
    await toEnd(dap, last.threadId);
  });

  it('two line breakpoints, one on a yield* line, in the order the run met them: the root page parsed, its GET before it, forward to the parsed line again', async () => {
    // Both on the root page's fetch only (depth 0): its GET comes before its page is parsed.
    await breakpoints(dap, [
      { line: PARSED, condition: 'depth === 0' },
      { line: GET, condition: 'depth === 0' },
    ]);
    const root = await hitShown(dap, await moved(dap, 'reverseContinue', endThread));
    assert.equal(root.depth, '0');
    const from = dap.mark();
    const get = await moved(dap, 'reverseContinue', root.threadId);
    assert.equal(get.reason, 'breakpoint', JSON.stringify(get));
    assert.equal(Number(get.threadId), root.threadId);
    const getTick = (await tasksOf(dap)).tick;
    assert.equal(
      outputSince(dap, from),
      `Coroscope: ${await taskNameOf(dap, root.threadId)} hit a breakpoint on a past line at ${CRAWLER_TS}:${GET} (tick ${getTick}, replayed)\n`,
    );
    const fetch = (await stackOf(dap, root.threadId)).find((f) => f.name === 'fetch');
    assert.equal(fetch?.line, GET);
    assert.equal((await localsOf(dap, fetch.id)).get('url'), root.url);
    // Nothing before the root's GET.
    const r = await dap.requestRaw('reverseContinue', { threadId: root.threadId });
    assert.equal(r.success, false);
    assert.deepEqual(
      r.body,
      refusal(
        `Reverse Continue: no stop at a breakpoint or an exception before tick ${getTick} in the recording (exception filters: none), and no hit of the breakpoints at ${CRAWLER_TS}:${PARSED}, ${CRAWLER_TS}:${GET} before it (replayed)`,
      ),
    );
    // Forward: the page parsed, a line stop again with its locals.
    assert.equal((await hitShown(dap, await moved(dap, 'continue', root.threadId))).url, root.url);
    await breakpoints(dap, []);
    await toEnd(dap, root.threadId);
  });

  it('the urlFailed filter set now: Reverse Continue lands on the URL the crawl recorded as failed, named, on its worker; Continue from before it lands there again', async () => {
    await breakpoints(dap, []);
    await dap.request('setExceptionBreakpoints', { filters: ['urlFailed'] });
    const failedAt = async (command: string, threadId: number): Promise<{ threadId: number; tick: number }> => {
      const from = dap.mark();
      const at = await moved(dap, command, threadId);
      // As the live stop at it was: an exception, its text the live stop's words.
      assert.equal(at.reason, 'exception', JSON.stringify(at));
      assert.equal(at.description, 'Paused on exception');
      assert.match(at.text ?? '', /failed to fetch http:\/\/127\.0\.0\.1:\d+\/broken\/: UnknownCharsetError/);
      const said = dap.events
        .slice(from)
        .filter((e) => e.event === 'output')
        .map((e) => String(e.body.output))
        .join('');
      // The live stop's words: the worker, the URL (the demo site's /broken/ page), the error.
      const m =
        /Task #(\d+) "worker-\d+" failed to fetch http:\/\/127\.0\.0\.1:\d+\/broken\/: UnknownCharsetError.*, at tick (\d+) of \d+ \(replayed/.exec(
          said,
        );
      assert.ok(m !== null, said);
      assert.equal(Number(at.threadId), Number(m[1]));
      return { threadId: Number(at.threadId), tick: Number(m[2]) };
    };
    const failed = await failedAt('reverseContinue', endThread);
    // The tick before it, then forward: the failure again.
    const from = dap.mark();
    await moved(dap, 'stepBack', LOOP_THREAD_ID);
    assert.ok(
      dap.events
        .slice(from)
        .some((e) => e.event === 'output' && String(e.body.output).includes(`tick ${failed.tick - 1} of`)),
    );
    assert.deepEqual(await failedAt('continue', LOOP_THREAD_ID), failed);
    // The only failure: nothing before it, and the refusal says what was looked for.
    const r = await dap.requestRaw('reverseContinue', { threadId: failed.threadId });
    assert.equal(r.success, false);
    assert.deepEqual(
      r.body,
      refusal(
        `Reverse Continue: no stop at a breakpoint, an exception or a failed URL before tick ${failed.tick} in the recording (exception filters: urlFailed) (no line breakpoint is set)`,
      ),
    );
    await dap.request('setExceptionBreakpoints', { filters: [] });
    await toEnd(dap, failed.threadId);
  });

  it('a line that never ran: refused, naming it; without any breakpoint: refused, saying none is set', async () => {
    await breakpoints(dap, [{ line: NEVER }]);
    const endTick = (await tasksOf(dap)).tick;
    let r = await dap.requestRaw('reverseContinue', { threadId: endThread });
    assert.equal(r.success, false);
    assert.deepEqual(
      r.body,
      refusal(
        `Reverse Continue: no stop at a breakpoint or an exception before tick ${endTick} in the recording (exception filters: none), and no hit of the breakpoint at ${CRAWLER_TS}:${NEVER} before it (replayed)`,
      ),
    );
    await breakpoints(dap, []);
    r = await dap.requestRaw('reverseContinue', { threadId: endThread });
    assert.equal(r.success, false);
    assert.deepEqual(
      r.body,
      refusal(
        `Reverse Continue: no stop at a breakpoint or an exception before tick ${endTick} in the recording (exception filters: none) (no line breakpoint is set)`,
      ),
    );
  });
});

describe('Continue from a past hit at a live line stop (standalone adapter)', { timeout: 180_000 }, () => {
  let dap: DapClient;
  before(async () => {
    dap = await startAdapter();
  });
  after(async () => {
    await dap?.close();
  });

  it("a later hit of another breakpoint, in a later tick: the Threads are that moment's (its task running)", async () => {
    // The third page parsed, live: a line stop holding the run.
    let live = stoppedBodyOf(
      await launchToStop(dap, demoCrawl({ maxTasks: 2 }), {
        configure: (d) => breakpoints(d, [{ line: PARSED }]),
        exceptionFilters: [],
      }),
    );
    for (let i = 0; i < 2; i++) live = await moved(dap, 'continue', Number(live.threadId));
    assert.equal(live.reason, 'breakpoint');
    assert.doesNotMatch(dap.outputText(), /on a past line/);
    // Reverse Continue twice: the first page's hit, in the past; then another breakpoint and Continue, until
    // a hit in a later tick than it.
    let back = await moved(dap, 'reverseContinue', Number(live.threadId));
    assert.equal(back.reason, 'breakpoint');
    back = await moved(dap, 'reverseContinue', Number(back.threadId));
    assert.equal(back.reason, 'breakpoint');
    // The tick of the hit shown: the task table's (every view shows the hit's moment).
    const tickOf = async (): Promise<number> => (await tasksOf(dap)).tick;
    const backTick = await tickOf();
    assert.ok(backTick > 0, dap.outputText());
    await breakpoints(dap, [{ line: DECL }]);
    let later = back;
    let laterTick = backTick;
    for (let i = 0; i < 5 && laterTick === backTick; i++) {
      later = await moved(dap, 'continue', Number(later.threadId));
      assert.equal(later.reason, 'breakpoint', JSON.stringify(later));
      laterTick = await tickOf();
    }
    assert.ok(laterTick > backTick, `${laterTick} > ${backTick}`);
    const frames = await stackOf(dap, Number(later.threadId));
    assert.equal(frames[0]!.line, DECL);
    // The Threads (the task table every view reads) are of the hit's moment: its task is the one running, on
    // the hit's line.
    const threads = await threadsOf(dap);
    const hitThread = threads.find((t) => t.id === Number(later.threadId));
    assert.equal(hitThread?.name, `${await taskNameOf(dap, Number(later.threadId))} [running: line ${DECL}]`);
    assert.ok(threads.filter((t) => /^worker-\d+ \[/.test(t.name)).length >= 2, JSON.stringify(threads));
    await breakpoints(dap, []);
    await dap.request('disconnect', { terminateDebuggee: true });
  });
});
