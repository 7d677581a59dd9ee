// Line-by-line debugging through the STANDALONE debug adapter over stdio (issue 14's "done
// when"): a breakpoint on an ordinary (non-`yield*`) line of the crawler's fetch stops there;
// the stack is the running task's real frames with their locals; next ×3; step in enters the
// delegated generator of a `yield*`; step out comes back to fetch in the same task; continue
// runs to the end. Step Back at such a stop (a recorded launch) goes back line by line with
// the locals of then, next comes forward to the live stop, and at the task's first line of the
// step it goes into its step before (the line where it suspended, an earlier tick), next from
// there to the live stop; step in at a past line enters the call it makes, and
// a step back inside it goes to its line before; continue from a past line stops on a
// breakpoint's hit between it and the live stop (in the stop's own tick), else comes back to the
// live stop, held; a run not recorded refuses it. The same on the callbacks sample's hand-made loop, where
// the stack is the
// loop's own callback frames. The other tasks stay listed as threads, with their stacks.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import { ERR_HOST } from '../../../extension/debug/session-core';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient } from './dap-client';
import {
  continueThroughEnd,
  launchToStop,
  localsOf,
  setBreakpoint,
  stackOf,
  startAdapter,
  tasksOf,
} from './adapter-harness';

const CRAWLER_TS = join(PROJECT_ROOT, 'runtime', 'crawler', 'crawler.ts');
const CALLBACKS_TS = join(PROJECT_ROOT, 'runtime', 'crawler', 'callback-fetcher.ts');
const QUEUE_WORKERS_TS = join(__dirname, 'fixtures', 'queue-workers.ts');

async function launchWithBreakpoint(
  dap: DapClient,
  args: Record<string, unknown>,
  file: string,
  line: number,
  condition?: string,
): Promise<{ threadId: number }> {
  let stopped = await launchToStop(
    dap,
    { type: 'coroscope', request: 'launch', name: 'line', ...args },
    {
      configure: async (d) => {
        const set = await setBreakpoint(d, file, condition === undefined ? { line } : { line, condition });
        assert.equal(set.verified, true, set.message);
        assert.equal(set.line, line);
      },
      exceptionFilters: [],
    },
  );
  if (args.stopOnEntry === true) {
    assert.equal(stopped.body.reason, 'entry');
    const go = dap.mark();
    await dap.request('continue', { threadId: Number(stopped.body.threadId) });
    stopped = await dap.waitForEvent('stopped', { from: go });
  }
  assert.equal(stopped.body.reason, 'breakpoint');
  return { threadId: Number(stopped.body.threadId) };
}

/** The name of the task a thread shows (the Coroutines view's task table: a thread's id is its task's). */
async function taskName(dap: DapClient, threadId: number): Promise<string> {
  return (await tasksOf(dap)).tasks.find((t) => t.id === threadId)?.name ?? `no task ${threadId}`;
}

/** Sends a step and waits for its `stopped`; returns the new top frames. */
async function step(
  dap: DapClient,
  command: 'next' | 'stepIn' | 'stepOut',
  threadId: number,
  reason: 'step' | 'breakpoint' = 'step',
): Promise<{ threadId: number; frames: DebugProtocol.StackFrame[] }> {
  const from = dap.mark();
  await dap.request(command, { threadId });
  const stopped = await dap.waitForEvent('stopped', { from });
  assert.equal(stopped.body.reason, reason);
  const t = Number(stopped.body.threadId);
  return { threadId: t, frames: await stackOf(dap, t) };
}

/**
 * Continue from a past line with nothing before the live stop: the live stop again, still held (said in the
 * console).
 */
async function backToLiveStop(dap: DapClient, threadId: number): Promise<void> {
  const from = dap.mark();
  await dap.request('continue', { threadId });
  await dap.waitForEvent('stopped', { from });
  assert.match(
    dap.events
      .slice(from)
      .filter((e) => e.event === 'output')
      .map((e) => String(e.body.output))
      .join(''),
    /back to the live stop/,
  );
}

async function continueToEnd(dap: DapClient, file: string): Promise<void> {
  await dap.request('setBreakpoints', { source: { path: file }, breakpoints: [] });
  await continueThroughEnd(dap, 0);
}

describe('line stepping through the standalone debug adapter', { timeout: 480_000 }, () => {
  before(async () => {});

  describe('in the crawler', () => {
    let dap: DapClient;
    before(async () => {
      dap = await startAdapter({ supportsVariableType: true });
    });
    after(async () => {
      await dap?.close();
    });

    it('breakpoint on fetch → locals → next ×3 → step in a yield* → step out → continue', async () => {
      const line = lineOf(CRAWLER_TS, 'let response: ClientResponse | null = null;');
      const { threadId } = await launchWithBreakpoint(dap, { crawl: 'demo', pages: 20, maxTasks: 2 }, CRAWLER_TS, line);
      const frames = await stackOf(dap, threadId);
      assert.deepEqual(
        frames.slice(0, 2).map((f) => f.name),
        ['fetch', 'work'],
      );
      assert.equal(frames[0]!.line, line);
      assert.equal(frames[0]!.source?.path, CRAWLER_TS);
      const locals = await localsOf(dap, frames[0]!.id);
      assert.match(locals.get('url') ?? '', /^"http:\/\/127\.0\.0\.1:\d+\/"$/);
      assert.equal(locals.get('response'), '<uninitialized>');
      const ev = await dap.request<DebugProtocol.EvaluateResponse['body']>('evaluate', {
        expression: 'depth + 1',
        frameId: frames[0]!.id,
        context: 'repl',
      });
      assert.equal(ev.result, '1');
      // The other worker is a thread too, with its reconstructed coroutine stack.
      const { threads } = await dap.request<DebugProtocol.ThreadsResponse['body']>('threads');
      const other = threads.find((t) => /^worker-\d+ \[/.test(t.name) && t.id !== threadId);
      assert.ok(other, threads.map((t) => t.name).join(' | '));
      const otherFrames = await stackOf(dap, other.id);
      assert.ok(
        otherFrames.some((f) => f.name === 'work'),
        otherFrames.map((f) => f.name).join(' < '),
      );

      // next, line by line (the declaration, the retry loop's head), to the body line with the yield*.
      const getLine = lineOf(CRAWLER_TS, 'response = yield* this.session.get(url, NO_REDIRECTS);');
      let at = await step(dap, 'next', threadId);
      assert.equal(at.frames[0]!.line, line + 1);
      for (let i = 0; i < 2 && at.frames[0]!.line !== getLine; i++) {
        const next = await step(dap, 'next', threadId);
        assert.ok(
          next.frames[0]!.line > at.frames[0]!.line && next.frames[0]!.line <= getLine,
          `a step over goes down fetch's lines: ${at.frames[0]!.line} → ${next.frames[0]!.line}`,
        );
        at = next;
      }
      assert.equal(at.frames[0]!.line, getLine);
      const inGet = await step(dap, 'stepIn', threadId);
      assert.equal(inGet.threadId, threadId);
      assert.equal(inGet.frames[0]!.source?.path, join(PROJECT_ROOT, 'runtime', 'http', 'client-session.ts'));
      assert.deepEqual(
        inGet.frames.slice(0, 3).map((f) => f.name),
        ['get', 'fetch', 'work'],
      );
      const back = await step(dap, 'stepOut', threadId);
      assert.equal(back.threadId, threadId);
      assert.equal(back.frames[0]!.name, 'fetch');
      assert.equal(back.frames[0]!.source?.path, CRAWLER_TS);
      const after = await localsOf(dap, back.frames[0]!.id);
      assert.equal(after.get('response'), 'ClientResponse');
      await continueToEnd(dap, CRAWLER_TS);
    });
  });

  describe('Step Back at a line (a recorded launch, the default)', () => {
    let dap: DapClient;
    before(async () => {
      dap = await startAdapter({ supportsVariableType: true });
    });
    after(async () => {
      await dap?.close();
    });

    /** Sends stepBack and waits for its `stopped`; returns the new top frames. */
    const stepBack = async (threadId: number): Promise<DebugProtocol.StackFrame[]> => {
      const from = dap.mark();
      await dap.request('stepBack', { threadId });
      const stopped = await dap.waitForEvent('stopped', { from });
      assert.equal(stopped.body.reason, 'step');
      assert.equal(Number(stopped.body.threadId), threadId);
      return stackOf(dap, threadId);
    };

    it("breakpoint on fetch → next ×2 → stepBack ×2 (the earlier lines, their locals then) → next back to the live stop → stepBack at the first line: the last line of its step before (an earlier tick) → next: the first line of the stop's step → continue", async () => {
      const line = lineOf(CRAWLER_TS, 'let response: ClientResponse | null = null;');
      const getLine = lineOf(CRAWLER_TS, 'response = yield* this.session.get(url, NO_REDIRECTS);');
      const { threadId } = await launchWithBreakpoint(dap, { crawl: 'demo', pages: 20, maxTasks: 2 }, CRAWLER_TS, line);
      // The lines run (a line stopped on twice in a row, the loop's head, is one line).
      const lines: number[] = [line];
      const ran = (l: number): void => void (lines[lines.length - 1] !== l && lines.push(l));
      let at = await step(dap, 'next', threadId);
      ran(at.frames[0]!.line);
      for (let i = 0; i < 2 && at.frames[0]!.line !== getLine; i++) {
        at = await step(dap, 'next', threadId);
        ran(at.frames[0]!.line);
      }
      assert.equal(at.frames[0]!.line, getLine);
      assert.equal((await localsOf(dap, at.frames[0]!.id)).get('response'), 'null');

      // Back, line by line: the lines fetch ran before, replayed, with the locals they had then.
      let frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, lines[lines.length - 2], `lines ${lines.join(',')}`);
      assert.deepEqual(
        frames.slice(0, 2).map((f) => f.name),
        ['fetch', 'work'],
      );
      for (let i = lines.length - 3; i >= 0; i--) frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, line);
      const then = await localsOf(dap, frames[0]!.id);
      assert.equal(then.get('response'), '<uninitialized>', 'response as it was before its line ran');
      assert.match(then.get('url') ?? '', /^"http:\/\/127\.0\.0\.1:\d+\/"$/);
      const ev = await dap.request<DebugProtocol.EvaluateResponse['body']>('evaluate', {
        expression: 'depth + 1',
        frameId: frames[0]!.id,
        context: 'repl',
      });
      assert.equal(ev.result, '1');

      // Forward again, line by line, to the live stop (the present).
      for (let i = 1; i < lines.length; i++) {
        at = await step(dap, 'next', threadId);
        assert.equal(at.frames[0]!.line, lines[i]);
      }
      assert.equal((await localsOf(dap, at.frames[0]!.id)).get('response'), 'null');

      // At the task's first line of this step (fetch resumed from its robots.txt wait), a step back goes into
      // its step before:
      // the line of fetch where it suspended (the `yield*` of the robots.txt check), in an earlier tick, with
      // fetch's frames and locals of then.
      for (let i = lines.length - 2; i >= 0; i--) frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, line);
      const from = dap.mark();
      frames = await stepBack(threadId);
      const said = dap.events
        .slice(from)
        .filter((e) => e.event === 'output')
        .map((e) => String(e.body.output))
        .join('');
      assert.match(
        said,
        /on a past line at .*crawler\.ts:\d+ \(tick \d+, replayed\): the last line of its step at tick \d+, before its step at tick \d+/,
      );
      assert.doesNotMatch(said, /previous suspension/);
      assert.deepEqual(
        frames.slice(0, 2).map((f) => f.name),
        ['fetch', 'work'],
      );
      assert.deepEqual(
        [frames[0]!.source?.path, frames[0]!.line],
        [CRAWLER_TS, lineOf(CRAWLER_TS, '(yield* this.robotsAllow(url))')],
      );
      assert.match((await localsOf(dap, frames[0]!.id)).get('url') ?? '', /^"http:\/\/127\.0\.0\.1:\d+\/"$/);
      // Next from there: the task's next line once resumed, the live stop's line (its breakpoint's, said so as
      // live) again.
      at = await step(dap, 'next', threadId, 'breakpoint');
      assert.equal(at.frames[0]!.line, line);
      assert.equal((await localsOf(dap, at.frames[0]!.id)).get('response'), '<uninitialized>');
      // Still a past line (the first of the stop's step): Continue comes back to the live stop, then runs on.
      await backToLiveStop(dap, threadId);
      await continueToEnd(dap, CRAWLER_TS);
    });

    it("continue from a past line: to a breakpoint's hit between it and the live stop (replayed, in the live stop's own tick), then to the live stop again, held as it was; from a past line with nothing before the live stop, the live stop at once", async () => {
      await dap.close();
      dap = await startAdapter({ supportsVariableType: true });
      const line = lineOf(CRAWLER_TS, 'let response: ClientResponse | null = null;');
      const forLine = lineOf(CRAWLER_TS, 'for (let tries = 1; ; tries++) {', line);
      const getLine = lineOf(CRAWLER_TS, 'response = yield* this.session.get(url, NO_REDIRECTS);', line);
      const { threadId } = await launchWithBreakpoint(dap, { crawl: 'demo', pages: 20, maxTasks: 2 }, CRAWLER_TS, line);
      // The live stop: on to the GET, line by line (the same tick).
      let at = await step(dap, 'next', threadId);
      for (let i = 0; i < 2 && at.frames[0]!.line !== getLine; i++) at = await step(dap, 'next', threadId);
      assert.equal(at.frames[0]!.line, getLine);
      const url = (await localsOf(dap, at.frames[0]!.id)).get('url');
      await dap.request('setBreakpoints', { source: { path: CRAWLER_TS }, breakpoints: [{ line }, { line: forLine }] });
      // Back to fetch's first line of the step (a past line), then Continue: the `for` line's hit, which ran
      // after it, before the live stop.
      let frames = await stepBack(threadId);
      for (let i = 0; i < 2 && frames[0]!.line !== line; i++) frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, line);
      let from = dap.mark();
      await dap.request('continue', { threadId });
      let stopped = await dap.waitForEvent('stopped', { from });
      assert.deepEqual(
        [stopped.body.reason, Number(stopped.body.threadId)],
        ['breakpoint', threadId],
        dap.outputText(),
      );
      frames = await stackOf(dap, threadId);
      assert.equal(frames[0]!.line, forLine, 'the hit between the past line and the live stop');
      assert.match(
        dap.events
          .slice(from)
          .filter((e) => e.event === 'output')
          .map((e) => String(e.body.output))
          .join(''),
        /hit a breakpoint on a past line/,
      );
      assert.equal((await localsOf(dap, frames[0]!.id)).get('url'), url);
      // Next from that hit (the live stop's task, in its tick): the live stop, the present (not a replayed
      // line of it, nor what the tick ran after it).
      from = dap.mark();
      await dap.request('next', { threadId });
      await dap.waitForEvent('stopped', { from });
      frames = await stackOf(dap, threadId);
      assert.equal(frames[0]!.line, getLine);
      const said = dap.events
        .slice(from)
        .filter((e) => e.event === 'output')
        .map((e) => String(e.body.output))
        .join('');
      assert.equal(
        said,
        'Coroscope: the recording has no later line of this task: back to the present\nCoroscope: back to the present\n',
      );
      assert.doesNotMatch(said, /on a past line/);
      // To the hit again (back to fetch's first line, Continue), then Continue again: no hit before the live
      // stop, so the live stop itself, where the program is held (not run on).
      frames = await stepBack(threadId);
      for (let i = 0; i < 2 && frames[0]!.line !== line; i++) frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, line);
      from = dap.mark();
      await dap.request('continue', { threadId });
      await dap.waitForEvent('stopped', { from });
      assert.equal((await stackOf(dap, threadId))[0]!.line, forLine);
      from = dap.mark();
      await dap.request('continue', { threadId });
      stopped = await dap.waitForEvent('stopped', { from });
      frames = await stackOf(dap, threadId);
      assert.equal(frames[0]!.line, getLine, dap.outputText());
      assert.equal((await localsOf(dap, frames[0]!.id)).get('url'), url);
      assert.equal((await localsOf(dap, frames[0]!.id)).get('response'), 'null');
      // From a past line after the last hit: the live stop at once, as it was (its reason), said in the console.
      frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, forLine);
      from = dap.mark();
      await dap.request('continue', { threadId });
      stopped = await dap.waitForEvent('stopped', { from });
      assert.deepEqual([stopped.body.reason, Number(stopped.body.threadId)], ['step', threadId]);
      frames = await stackOf(dap, threadId);
      assert.equal(frames[0]!.line, getLine);
      assert.match(
        dap.events
          .slice(from)
          .filter((e) => e.event === 'output')
          .map((e) => String(e.body.output))
          .join(''),
        /back to the live stop/,
      );
      // And Continue there runs the program on: the next hit is live (fetch's first line, not a past one).
      from = dap.mark();
      await dap.request('continue', { threadId });
      stopped = await dap.waitForEvent('stopped', { from });
      assert.equal(stopped.body.reason, 'breakpoint');
      assert.doesNotMatch(
        dap.events
          .slice(from)
          .filter((e) => e.event === 'output')
          .map((e) => String(e.body.output))
          .join(''),
        /past line/,
      );
      await continueToEnd(dap, CRAWLER_TS);
    });

    it("at a past line the Threads are that moment's: stepBack before crawl() created its workers lists none, next back to the live stop lists them again", async () => {
      await dap.close();
      dap = await startAdapter({ supportsVariableType: true });
      const line = lineOf(CRAWLER_TS, 'let finished = false;');
      const { threadId } = await launchWithBreakpoint(dap, { crawl: 'demo', pages: 20, maxTasks: 2 }, CRAWLER_TS, line);
      const workers = async (): Promise<string[]> =>
        (await dap.request<DebugProtocol.ThreadsResponse['body']>('threads')).threads
          .map((t) => t.name)
          .filter((n) => /^worker-\d+ \[/.test(n));
      assert.equal((await workers()).length, 2);
      const frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, line - 1, 'the loop that creates the workers, before it ran');
      assert.deepEqual(await workers(), [], 'no worker yet at that line');
      // Back to the live stop: in its own reason (its breakpoint's), as it was.
      const at = await step(dap, 'next', threadId, 'breakpoint');
      assert.equal(at.frames[0]!.line, line);
      assert.equal((await workers()).length, 2);
      await continueToEnd(dap, CRAWLER_TS);
    });

    it("step in at a past line enters the call it makes (isRedirect, not on the live stop's frames): its frame and locals, next out of it, on to the live stop (the present)", async () => {
      await dap.close();
      dap = await startAdapter({ supportsVariableType: true });
      const callLine = lineOf(CRAWLER_TS, 'if (isRedirect(response)) {');
      const { threadId } = await launchWithBreakpoint(
        dap,
        { crawl: 'demo', pages: 20, maxTasks: 2 },
        CRAWLER_TS,
        callLine,
      );
      // The live stop: the line after the call, which returned (the page is no redirect).
      const live = await step(dap, 'next', threadId);
      assert.equal(live.frames[0]!.line, lineOf(CRAWLER_TS, 'let parsed: { stat: FetchStatistic; links: string[] };'));
      let frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, callLine);
      // Step in: isRedirect as it ran then, replayed.
      let at = await step(dap, 'stepIn', threadId);
      assert.deepEqual(
        at.frames.slice(0, 3).map((f) => f.name),
        ['isRedirect', 'fetch', 'work'],
      );
      assert.equal(
        at.frames[0]!.line,
        lineOf(CRAWLER_TS, 'return isRedirectStatus(response.status) && response.headers.has('),
      );
      assert.ok((await localsOf(dap, at.frames[0]!.id)).has('response'));
      const ev = await dap.request<DebugProtocol.EvaluateResponse['body']>('evaluate', {
        expression: 'response.status',
        frameId: at.frames[0]!.id,
        context: 'repl',
      });
      assert.equal(ev.result, '200');
      // Next, out of it into fetch (past lines), until the live stop: the present (a live frame, its locals).
      const lines: string[] = [];
      for (let i = 0; i < 4 && at.frames[0]!.name !== 'fetch'; i++) {
        at = await step(dap, 'next', threadId);
        lines.push(`${at.frames[0]!.name}:${at.frames[0]!.line}`);
      }
      for (let i = 0; i < 3 && at.frames[0]!.line !== live.frames[0]!.line; i++) {
        at = await step(dap, 'next', threadId);
        lines.push(`${at.frames[0]!.name}:${at.frames[0]!.line}`);
      }
      assert.equal(at.frames[0]!.line, live.frames[0]!.line, lines.join(', '));
      assert.deepEqual(
        at.frames.slice(0, 2).map((f) => f.name),
        ['fetch', 'work'],
      );
      // At the present, a step back goes to the call's line again (the walk is of the live stop).
      frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, callLine);
      await backToLiveStop(dap, threadId);
      await continueToEnd(dap, CRAWLER_TS);
    });

    it("step back inside a call entered by step in at a past line goes to the callee's line before; from its first line, to the calling line", async () => {
      await dap.close();
      dap = await startAdapter({ supportsVariableType: true });
      const recordLine = lineOf(
        CRAWLER_TS,
        'this.record(stat);',
        lineOf(CRAWLER_TS, 'const { stat, links } = parsed;'),
      );
      const releaseLine = lineOf(CRAWLER_TS, 'response.release();', recordLine);
      const pushLine = lineOf(CRAWLER_TS, 'this.done.push(stat);');
      const { threadId } = await launchWithBreakpoint(
        dap,
        { crawl: 'demo', pages: 20, maxTasks: 2 },
        CRAWLER_TS,
        releaseLine,
      );
      let frames = await stepBack(threadId);
      assert.equal(frames[0]!.line, recordLine);
      // Into record, as it ran then: its first line, then over to its second.
      let at = await step(dap, 'stepIn', threadId);
      assert.deepEqual(
        at.frames.slice(0, 3).map((f) => `${f.name}:${f.line}`),
        [`record:${pushLine}`, `fetch:${recordLine}`, `work:${at.frames[2]!.line}`],
      );
      at = await step(dap, 'next', threadId);
      assert.equal(at.frames[0]!.name, 'record');
      assert.equal(at.frames[0]!.line, pushLine + 1);
      // Back: record's line before (not fetch's calling line), then the calling line.
      frames = await stepBack(threadId);
      assert.deepEqual(
        frames.slice(0, 2).map((f) => `${f.name}:${f.line}`),
        [`record:${pushLine}`, `fetch:${recordLine}`],
      );
      frames = await stepBack(threadId);
      assert.equal(frames[0]!.name, 'fetch');
      assert.equal(frames[0]!.line, recordLine);
      await backToLiveStop(dap, threadId);
      await continueToEnd(dap, CRAWLER_TS);
    });

    it('a run not recorded refuses Step Back at a line with the reason', async () => {
      await dap.close();
      dap = await startAdapter({ supportsVariableType: true });
      const line = lineOf(CRAWLER_TS, 'let response: ClientResponse | null = null;');
      const { threadId } = await launchWithBreakpoint(
        dap,
        { crawl: 'demo', pages: 20, maxTasks: 2, record: false },
        CRAWLER_TS,
        line,
      );
      const r = await dap.requestRaw('stepBack', { threadId });
      assert.equal(r.success, false);
      assert.deepEqual(r.body, {
        error: {
          id: ERR_HOST,
          format:
            "Step Back needs a recorded run: launch with record (timeline: run 1 was not recorded: launch it with options.record (the extension's coroscope.record setting))",
          showUser: true,
        },
      });
      // The stop is still there.
      assert.equal((await stackOf(dap, threadId))[0]!.line, line);
      await continueToEnd(dap, CRAWLER_TS);
    });
  });

  describe("in the callbacks sample's hand-made loop", () => {
    let dap: DapClient;
    before(async () => {
      dap = await startAdapter({ supportsVariableType: true });
    });
    after(async () => {
      await dap?.close();
    });

    it('breakpoint in a callback → locals → next ×3 → step in → step out → continue', async () => {
      const line = lineOf(CALLBACKS_TS, 'const sock = this.sock!;', lineOf(CALLBACKS_TS, 'connected(key: SelectorKey'));
      // Paused at entry: the sample's own loop has not started before the breakpoint is set.
      const { threadId } = await launchWithBreakpoint(
        dap,
        { sample: 'callbacks', stopOnEntry: true },
        CALLBACKS_TS,
        line,
      );
      const frames = await stackOf(dap, threadId);
      assert.equal(frames[0]!.name, 'connected');
      assert.ok(
        frames.some((f) => f.name === 'runCallbackLoop'),
        frames.map((f) => f.name).join(' < '),
      );
      const locals = await localsOf(dap, frames[0]!.id);
      assert.ok(locals.has('key') && locals.has('mask'), [...locals.keys()].join(', '));
      // The hand-made loop's own state: a scope of its own, with its sockets and their callbacks.
      const { scopes } = await dap.request<DebugProtocol.ScopesResponse['body']>('scopes', { frameId: frames[0]!.id });
      const loopScope = scopes.find((sc) => sc.name === "Program loop: the callback crawl's select loop");
      assert.ok(loopScope, scopes.map((sc) => sc.name).join(', '));
      const loopVars = await dap.request<DebugProtocol.VariablesResponse['body']>('variables', {
        variablesReference: loopScope.variablesReference,
      });
      const byName = new Map(loopVars.variables.map((v) => [v.name, v]));
      assert.match(byName.get('running')?.value ?? '', /^fd \d+ writable: bound connected$/);
      const socketsVar = byName.get('sockets');
      assert.ok(socketsVar !== undefined && socketsVar.variablesReference > 0, JSON.stringify(loopVars.variables));
      const sockets = await dap.request<DebugProtocol.VariablesResponse['body']>('variables', {
        variablesReference: socketsVar.variablesReference,
      });
      assert.ok(
        sockets.variables.some(
          (v) => /^fd \d+$/.test(v.name) && /^write → bound connected: <Socket fd=\d+ /.test(v.value),
        ),
        JSON.stringify(sockets.variables),
      );
      for (const next of [
        'this.crawl.selector.unregister(key.fd);',
        'const failure = sock.error();',
        'if (failure !== null) throw failure;',
      ]) {
        const at = await step(dap, 'next', threadId);
        assert.equal(at.frames[0]!.line, lineOf(CALLBACKS_TS, next, line));
      }
      const sent = await step(dap, 'next', threadId);
      assert.equal(sent.frames[0]!.line, lineOf(CALLBACKS_TS, 'let sent = 0;', line));
      await step(dap, 'next', threadId);
      const inSend = await step(dap, 'stepIn', threadId);
      assert.equal(inSend.frames[0]!.source?.path, join(PROJECT_ROOT, 'runtime', 'socket.ts'));
      assert.equal(inSend.frames[1]!.name, 'connected');
      const out = await step(dap, 'stepOut', threadId);
      assert.equal(out.frames[0]!.name, 'connected');
      await continueToEnd(dap, CALLBACKS_TS);
    });
  });

  // Step over a `yield*` that suspends: the Debug Console says who suspended on what and which
  // task the loop runs next; the step lands on the same task's next line (stayWithTask, the
  // default) or on the next line the loop runs (followLoop).
  describe('over a yield* that suspends (a queue and five workers)', () => {
    const labelLine = lineOf(QUEUE_WORKERS_TS, 'const label = `worker-${n}: job ${first}`;');
    const getLine = lineOf(QUEUE_WORKERS_TS, 'const second = yield* q.get();');
    const pushLine = lineOf(QUEUE_WORKERS_TS, 'done.push(');
    const secondRoundLine = lineOf(QUEUE_WORKERS_TS, 'for (const n of WORKERS) q.putNowait(10 + n);');
    const gatherLine = lineOf(QUEUE_WORKERS_TS, 'yield* gather(...tasks);');
    const SUSPENDED = /worker-3 suspended on queue\.get; the loop runs worker-5\n/;

    async function toSecondGet(dap: DapClient, lineStepMode: string): Promise<number> {
      const { threadId } = await launchWithBreakpoint(
        dap,
        { program: QUEUE_WORKERS_TS, lineStepMode },
        QUEUE_WORKERS_TS,
        labelLine,
        'n === 3',
      );
      assert.equal(await taskName(dap, threadId), 'worker-3');
      const at = await step(dap, 'next', threadId);
      assert.equal(at.frames[0]!.line, getLine);
      assert.equal(at.threadId, threadId);
      assert.doesNotMatch(dap.outputText(), SUSPENDED);
      return threadId;
    }

    it("stayWithTask: lands on the same worker's next line once the loop resumes it", async () => {
      const dap = await startAdapter({ supportsVariableType: true });
      try {
        const worker3 = await toSecondGet(dap, 'stayWithTask');
        const landed = await step(dap, 'next', worker3);
        assert.match(dap.outputText(), SUSPENDED);
        assert.equal(landed.threadId, worker3);
        assert.equal(landed.frames[0]!.line, pushLine);
        const locals = await localsOf(dap, landed.frames[0]!.id);
        assert.match(locals.get('second') ?? '', /^1[1-5]$/);
        assert.match(locals.get('label') ?? '', /^"worker-3: job [1-5]"$/);
        await continueToEnd(dap, QUEUE_WORKERS_TS);
      } finally {
        await dap.close();
      }
    });

    it("followLoop: lands on the next line the loop runs, main's, past the workers that wait again", async () => {
      const dap = await startAdapter({ supportsVariableType: true });
      try {
        const worker3 = await toSecondGet(dap, 'followLoop');
        const landed = await step(dap, 'next', worker3);
        assert.match(dap.outputText(), SUSPENDED);
        // worker-5, then worker-4, find the queue emptied by the earlier workers' second gets and wait again
        // inside queue.get, running no line of their own: the next line is main's, once its sleep ends. (Stepped
        // over inside queue.get, V8 broke where worker-5 resumed after main's second round: main's lines ran
        // unseen, and the step landed on worker-5's line.)
        assert.equal(await taskName(dap, landed.threadId), 'main');
        assert.equal(landed.frames[0]!.line, secondRoundLine);
        // Back to staying with the task, set while stopped: main's next line.
        await dap.request('coroscope/setLineStepMode', { mode: 'stayWithTask' });
        await assert.rejects(
          dap.request('coroscope/setLineStepMode', { mode: 'sideways' }),
          /"mode" must be "stayWithTask" or "followLoop"/,
        );
        const again = await step(dap, 'next', landed.threadId);
        assert.equal(again.threadId, landed.threadId);
        assert.equal(again.frames[0]!.line, gatherLine);
        await continueToEnd(dap, QUEUE_WORKERS_TS);
      } finally {
        await dap.close();
      }
    });
  });
});
