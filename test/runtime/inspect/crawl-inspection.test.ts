// The inspector on a real crawl of the demo site (loopback, port 0), with coroutine tracking
// on, the loop stepped tick by tick with runOnce() and held between steps: busy workers'
// frames read work → fetch → … down to a socket wait, with TypeScript files and lines whose
// text really is the `yield*` into the next frame; the fetch frame's locals hold the URL
// being fetched; idle workers wait in the queue's get; the crawl task awaits the queue's
// join; the ps table and the pstree dump show all of it.
import { resourceIdOf } from '../../../runtime/inspect/resource-ids';
import { test, describe, before, after } from 'node:test';
import { inspect } from '../../../runtime/inspection';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EventLoop, setCoroutineTracking, type Task } from '../../../runtime/index';
import { startDemoSite, type DemoSite } from '../../../runtime/demo-site/index';
import { Crawler } from '../../../runtime/crawler/crawler';
import {
  TaskRecorder,
  formatPsTable,
  formatPsTree,
  snapshotTasks,
  taskFrames,
  generatorReader,
  type TaskFrame,
  type TaskSummary,
} from '../../../runtime/inspect/index';
import { lineOf } from '../../source-line';

const RUNTIME = join(__dirname, '..', '..', '..', 'runtime');
const CRAWLER_TS = join(RUNTIME, 'crawler', 'crawler.ts');
const QUEUE_TS = join(RUNTIME, 'queue.ts');

const SOCKET_KINDS = new Set(['socket.read', 'socket.write', 'socket.connect', 'socket.drain', 'stream.read']);

/** Runs single ticks until `done()` holds (at most maxTicks). */
async function tickUntil(loop: EventLoop, done: () => boolean, maxTicks = 20000): Promise<void> {
  for (let i = 0; i < maxTicks; i++) {
    if (done()) return;
    await loop.runOnce();
  }
  assert.fail(`condition not reached in ${maxTicks} ticks`);
}

const sourceCache = new Map<string, string[]>();
function sourceLine(file: string, line: number): string {
  let lines = sourceCache.get(file);
  if (lines === undefined) sourceCache.set(file, (lines = readFileSync(file, 'utf8').split('\n')));
  return lines[line - 1] ?? '';
}

/**
 * How a caller's line names the callee's frame when the names differ: `session.get()` runs
 * the coroutine named `request`; withTimeout/waitFor delegate to the coroutine they were
 * handed (`yield* coro`).
 */
function callTokens(caller: TaskFrame, callee: TaskFrame): string[] {
  const tokens = [`${callee.functionName}(`];
  if (callee.functionName === 'request') tokens.push('.get(', '.request(', '.head(');
  if (caller.functionName === 'withTimeout' || caller.functionName === 'waitFor') tokens.push('coro', 'fut', 'aw');
  return tokens;
}

/** Every frame's line is a `yield*`, and names the next frame's call (the innermost awaits a future). */
function assertLinesAreYieldsIntoNext(frames: TaskFrame[]): void {
  for (let i = 0; i < frames.length; i++) {
    const f = frames[i]!;
    assert.ok(f.file !== null && f.line !== null, `frame ${f.functionName} has a position`);
    assert.equal(f.mapped, true, `${f.functionName} was mapped through a source map`);
    assert.match(f.file, /\.ts$/, `${f.functionName} is in a TypeScript file: ${f.file}`);
    const text = sourceLine(f.file, f.line);
    assert.match(
      text,
      /yield\*/,
      `${basename(f.file)}:${f.line} of ${f.functionName} is a yield*: ${JSON.stringify(text.trim())}`,
    );
    const next = frames[i + 1];
    if (next !== undefined) {
      const tokens = callTokens(f, next);
      assert.ok(
        tokens.some((t) => text.includes(t)),
        `${basename(f.file)}:${f.line} (${f.functionName}) delegates to ${next.functionName}: ${JSON.stringify(text.trim())}`,
      );
    }
  }
}

describe('inspecting a demo-site crawl', () => {
  let site: DemoSite;
  let loop: EventLoop;
  let recorder: TaskRecorder;
  let crawler: Crawler;
  let crawlTask: Task<void>;

  before(async () => {
    setCoroutineTracking(true);
    site = await startDemoSite({ latencyMs: 20 });
    loop = new EventLoop();
    recorder = TaskRecorder.attach(loop);
    crawler = new Crawler([site.url], { maxTasks: 10 });
    crawlTask = loop.createTask(crawler.crawl(), { name: 'crawl' });
  });

  after(async () => {
    // Let the crawl finish (it must: the inspector changed nothing), then clean up.
    if (!crawlTask.done()) await loop.runUntilComplete(crawlTask);
    recorder.detach();
    loop.close();
    setCoroutineTracking(false);
    await site.close();
  });

  const workers = (): Task<unknown>[] => loop.allTasks().filter((t) => t.name.startsWith('worker-'));
  const summaryOf = (task: Task<unknown>): TaskSummary =>
    snapshotTasks(loop, { recorder }).tasks.find((s) => s.id === task.id)!;

  test('at the start: the crawl awaits the queue join, nine idle workers wait in queue.get', async () => {
    // Tick 1 runs crawl() (creates the workers); tick 2 runs each worker's first step.
    await tickUntil(loop, () => workers().length === 10 && workers().every((w) => w.steps() > 0));
    const snap = snapshotTasks(loop, { recorder });
    const crawl = snap.tasks.find((s) => s.id === crawlTask.id)!;
    assert.equal(crawl.state, 'suspended');
    assert.equal(crawl.awaiting?.kind, 'queue.join');
    assert.equal(crawl.awaiting?.resourceId, resourceIdOf(crawler.q));
    assert.deepEqual(crawl.frames, ['crawl', 'join', 'wait']);
    const ws = snap.tasks.filter((s) => s.name.startsWith('worker-'));
    const idle = ws.filter((s) => s.awaiting?.kind === 'queue.get');
    assert.equal(idle.length, 9, 'one worker took the root URL, the nine others wait for work');
    for (const s of ws) assert.equal(s.createdBy, crawlTask.id, `${s.name} was created by the crawl task`);
    for (const s of idle) {
      assert.equal(s.state, 'suspended');
      assert.deepEqual(s.frames, ['work', 'get']);
    }
    // The idle workers' frames: work at `yield* this.q.get()`, get at `yield* getter`.
    const idleTask = loop.allTasks().find((t) => t.id === idle[0]!.id)!;
    const frames = taskFrames(idleTask);
    assert.deepEqual(
      frames.map((f) => [f.functionName, f.file, f.line]),
      [
        ['work', CRAWLER_TS, lineOf(CRAWLER_TS, 'yield* this.q.get()')],
        ['get', QUEUE_TS, lineOf(QUEUE_TS, 'yield* getter;')],
      ],
    );
    // The crawl task's frames end in the Event the join waits on.
    const crawlFrames = taskFrames(crawlTask);
    assert.deepEqual(
      crawlFrames.map((f) => f.functionName),
      ['crawl', 'join', 'wait'],
    );
    assert.deepEqual(
      [crawlFrames[0]!.file, crawlFrames[0]!.line],
      [CRAWLER_TS, lineOf(CRAWLER_TS, 'yield* this.q.join()')],
    );
  });

  test('mid-crawl: busy workers read work → fetch → … → a socket wait, with TypeScript lines and the URL in fetch', async () => {
    const busyOnSockets = (): Task<unknown>[] =>
      workers().filter((w) => w.awaiting() !== null && SOCKET_KINDS.has(w.awaiting()![inspect]().kind));
    await tickUntil(loop, () => crawler.done.length >= 20 && busyOnSockets().length >= 3);
    const busy = busyOnSockets();
    assert.ok(busy.length >= 3);
    let checked = 0;
    const reader = generatorReader();
    for (const w of busy) {
      const group = reader.newHandleGroup();
      const frames = taskFrames(w, { locals: true, handles: { table: reader.handles, group } });
      const names = frames.map((f) => f.functionName);
      assert.deepEqual(names.slice(0, 2), ['work', 'fetch'], `${w.name}: ${names.join(' > ')}`);
      assert.ok(names.includes('request'), `${w.name} is inside the HTTP client: ${names.join(' > ')}`);
      const last = frames[frames.length - 1]!;
      assert.match(
        last.functionName,
        /^(waitReadable|waitWritable|sockConnect|drain|_fill)$/,
        `${w.name} ends in a socket wait: ${names.join(' > ')}`,
      );
      assert.ok(frames.every((f) => f.state === 'suspended'));
      const files = new Set(frames.map((f) => basename(f.file!)));
      assert.ok(files.has('crawler.ts') && files.has('client-session.ts'), [...files].join(', '));
      assertLinesAreYieldsIntoNext(frames);

      // The fetch frame's locals: url is the URL the HTTP client is fetching.
      const fetch = frames[1]!;
      const url = fetch.locals?.find((l) => l.name === 'url');
      assert.ok(url !== undefined, `fetch has a url local: ${fetch.locals?.map((l) => l.name).join(', ')}`);
      assert.equal(url.value.type, 'string');
      const fetchedUrl = JSON.parse(url.value.text) as string;
      assert.ok(fetchedUrl.startsWith(site.url), fetchedUrl);
      const request = frames.find((f) => f.functionName === 'request')!;
      const requested = request.locals?.find((l) => l.name === 'url');
      assert.equal(requested?.value.text, url.value.text, 'request() was called with the URL fetch() holds');
      const work = frames[0]!;
      const item = work.locals?.find((l) => l.name === 'item');
      assert.ok(
        item?.value.text.includes(JSON.stringify(fetchedUrl).slice(0, 40)),
        `work's item is the same URL: ${item?.value.text}`,
      );
      const self = fetch.locals?.find((l) => l.name === 'this');
      assert.match(self?.value.text ?? '', /^Crawler \{/);
      // The Crawler behind `this` expands into its fields.
      const fields = reader.readChildren(self!.value.handle!).children.map((c) => c.name);
      assert.ok(fields.includes('seenUrls') && fields.includes('q'), fields.join(', '));
      reader.releaseHandles(group);
      checked++;
    }
    assert.ok(checked >= 3);
    // Summary: the same workers await a socket; the crawl still awaits the join.
    for (const w of busy) {
      const s = summaryOf(w);
      assert.equal(s.state, 'suspended');
      assert.ok(SOCKET_KINDS.has(s.awaiting!.kind), s.awaiting!.kind);
      assert.deepEqual(s.frames.slice(0, 2), ['work', 'fetch']);
    }
    assert.equal(summaryOf(crawlTask).awaiting?.kind, 'queue.join');
  });

  test('the ps table and the pstree dump show the workers, their frames and what they await', () => {
    const table = formatPsTable(loop, { recorder });
    const lines = table.trimEnd().split('\n');
    assert.match(lines[0]!, /^task id\s+task name\s+state\s+steps\s+awaiting\s+awaited by\s+coroutine stack/);
    const crawlRow = lines.find((l) => /^\d+\s+crawl\s/.test(l));
    assert.ok(crawlRow !== undefined, table);
    assert.match(crawlRow, /queue\.join q \(Queue, crawler\.ts:\d+\) /);
    assert.match(crawlRow, /wait < join < crawl$/);
    const busy = workers().filter((w) => w.awaiting() !== null && SOCKET_KINDS.has(w.awaiting()![inspect]().kind));
    assert.ok(busy.length > 0);
    for (const w of busy) {
      const row = lines.find((l) => l.startsWith(`${w.id} `) && l.includes(` ${w.name} `));
      assert.ok(row !== undefined, `row of ${w.name}:\n${table}`);
      assert.match(row, /socket\.|stream\.read/);
      assert.match(row, / < fetch < work$/);
    }

    const tree = formatPsTree(loop, { recorder, paths: 'basename' });
    const treeLines = tree.split('\n');
    const crawlAt = treeLines.findIndex((l) => l.includes(`#${crawlTask.id} crawl [`));
    assert.ok(crawlAt >= 0, tree);
    assert.match(treeLines[crawlAt]!, /^└── \(T\) /, 'the crawl task is the root');
    assert.match(tree, /crawl crawler\.ts:\d+\n/);
    assert.match(tree, /awaits queue\.join q \(Queue, crawler\.ts:\d+\)\n/);
    for (const w of busy) {
      const at = treeLines.findIndex((l) => l.includes(`#${w.id} ${w.name} [`));
      assert.ok(at > crawlAt, `${w.name} is under the crawl task`);
      assert.match(treeLines[at]!, /^ {4}[├└]── \(T\) /, `${w.name} is a child of crawl: ${treeLines[at]}`);
      // Its frames follow, one per line, root first, innermost last, then its await.
      const frames = taskFrames(w);
      for (let i = 0; i < frames.length; i++) {
        const f = frames[i]!;
        const expected = `${f.functionName} ${basename(f.file!)}:${f.line}`;
        assert.ok(
          treeLines[at + 1 + i]!.endsWith(expected),
          `line ${at + 1 + i}: ${JSON.stringify(treeLines[at + 1 + i])} ends with ${expected}`,
        );
      }
      assert.match(treeLines[at + 1 + frames.length]!, /awaits (socket\.|stream\.read)/);
    }
  });

  test('a running crawl is unharmed: it finishes with every URL accounted for', async () => {
    await loop.runUntilComplete(crawlTask);
    const stats = crawler.stats;
    assert.ok(stats.urls > 100, JSON.stringify(stats));
    assert.equal(crawler.q.unfinishedTasks(), 0);
  });
});

describe('100 workers: idle ones collapse, busy ones are shown in full', () => {
  test('pstree and ps collapse the 99 idle workers into one entry each', async () => {
    setCoroutineTracking(true);
    const site = await startDemoSite({ latencyMs: 50 });
    const loop = new EventLoop();
    const recorder = TaskRecorder.attach(loop);
    try {
      const crawler = new Crawler([site.url], { maxTasks: 100 });
      const crawlTask = loop.createTask(crawler.crawl(), { name: 'crawl' });
      const ws = (): Task<unknown>[] => loop.allTasks().filter((t) => t.name.startsWith('worker-'));
      await tickUntil(loop, () => ws().length === 100 && ws().every((w) => w.steps() > 0));
      // The loop's attached recorder is used by default (the CLI calls formatPsTree(loop)).
      const tree = formatPsTree(loop, { paths: 'basename' });
      const lines = tree.trimEnd().split('\n');
      const collapsed = lines.filter((l) => /\(T\) × 99 suspended/.test(l));
      assert.equal(collapsed.length, 1, tree);
      assert.match(collapsed[0]!, /#\d+ worker-2, #\d+ worker-3, #\d+ worker-4, #\d+ worker-5, … #\d+ worker-100/);
      assert.ok(lines.length < 40, `the tree stays short:\n${tree}`);
      assert.match(collapsed[0]!, /^ {4}[├└]── /, 'the idle workers are under the crawl task');
      assert.match(
        tree,
        /work crawler\.ts:\d+\n.*get queue\.ts:\d+\n.*awaits queue\.get q \(Queue, crawler\.ts:\d+\)\n/,
      );
      const table = formatPsTable(loop, { recorder });
      const tableLines = table.trimEnd().split('\n');
      assert.ok(tableLines.length <= 6, table);
      assert.match(table, /^×99\s+#\d+ worker-2 … #\d+ worker-100\s+suspended\s+1\s+queue\.get/m);
      assert.match(table, /get < work$/m);
      // Nothing collapses when asked not to.
      assert.equal(
        formatPsTable(loop, { recorder, collapse: 'none' }).trimEnd().split('\n').length,
        2 + loop.liveTaskCount(),
      );
      await loop.runUntilComplete(crawlTask);
    } finally {
      recorder.detach();
      loop.close();
      setCoroutineTracking(false);
      await site.close();
    }
  });
});
