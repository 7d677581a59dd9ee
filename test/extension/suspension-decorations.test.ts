// The editor marks of suspended tasks (extension/suspension-decorations.ts) through the stub of the editor's
// API (debug/vscode-stub.ts), a fake run session of emitters and a table, on Node's mocked setTimeout and
// Date: a pause marks at once, a snapshot while running waits REFRESH_MS (1.5 s) after the last refresh;
// a task's position comes from its snapshot location, else from taskDetail (at most 60 asked), only while
// a TypeScript editor is visible; each visible editor gets its lines' marks (label and a hover of the tasks,
// twelve at most); a run that ends clears them; dispose stops listening.
import { StubUri, stubWindow } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it, type TestContext } from 'node:test';
import type { TaskSummary } from '../../protocol/host-protocol';
import type { RunStatus } from '../../protocol/webview-protocol';
import { Emitter } from '../../extension/emitter';
import type { RunSession } from '../../extension/run-session';
import { SuspensionDecorations } from '../../extension/suspension-decorations';
import { makeTask } from '../webview/fixtures-tasks';

const FILE = '/proj/crawler.ts';

interface FakeSession {
  session: RunSession;
  status: Emitter<Partial<RunStatus>>;
  snapshot: Emitter<{ change: { full: boolean } }>;
  tasks: Map<number, TaskSummary>;
  /** The taskDetail requests, by task id, in order. */
  asked: number[];
}

function fakeSession(): FakeSession {
  const f = {
    status: new Emitter<Partial<RunStatus>>(),
    snapshot: new Emitter<{ change: { full: boolean } }>(),
    tasks: new Map<number, TaskSummary>(),
    asked: [] as number[],
  } as FakeSession;
  let phase = 'running';
  f.status.on((s) => (phase = s.phase ?? phase));
  f.session = {
    onStatus: f.status,
    onSnapshot: f.snapshot,
    onViewed: new Emitter<unknown>(),
    get status() {
      return { phase };
    },
    isActive: () => phase === 'running' || phase === 'paused',
    viewingPast: () => false,
    mirror: { tasks: f.tasks },
    request: async (_method: string, params: { taskId: number }) => {
      f.asked.push(params.taskId);
      const task = f.tasks.get(params.taskId);
      return { task, frames: [{ name: 'fetch', position: { file: FILE, line: 20 + params.taskId, column: 1 } }] };
    },
  } as unknown as RunSession;
  return f;
}

/** A suspended task, at `line` of FILE by its snapshot location, or (no line) known only by taskDetail. */
function suspended(id: number, line?: number): TaskSummary {
  const t = makeTask(id, { state: 'suspended', name: `t${id}`, frames: ['main', 'fetch'], awaiting: null });
  if (line === undefined) delete (t as { location?: unknown }).location;
  else t.location = { file: FILE, line, column: 1 };
  return t;
}

interface Editor {
  set: Array<Array<{ line: number; label: string; hover: string[] }>>;
}

function editor(path: string, lines = 100): Editor {
  const e: Editor = { set: [] };
  stubWindow.editors.push({
    document: { uri: StubUri.file(path), lineCount: lines, lineAt: () => ({ text: 'code' }) },
    setDecorations: (
      _type: unknown,
      options: Array<{
        range: { line: number };
        renderOptions: { after: { contentText: string } };
        hoverMessage: { parts: string[] };
      }>,
    ) =>
      e.set.push(
        options.map((o) => ({
          line: o.range.line,
          label: o.renderOptions.after.contentText,
          hover: o.hoverMessage.parts,
        })),
      ),
  });
  return e;
}

async function settle(t: TestContext, ms = 0): Promise<void> {
  t.mock.timers.tick(ms);
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

beforeEach(() => stubWindow.reset());

describe('suspension marks', () => {
  it('a pause marks at once: snapshot locations, else taskDetail; one label and hover per line', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 });
    const f = fakeSession();
    f.tasks.set(1, suspended(1, 5));
    f.tasks.set(2, suspended(2, 5));
    f.tasks.set(3, suspended(3));
    f.tasks.set(4, { ...suspended(4, 9), state: 'running' });
    // Past the editor's last line: no mark there.
    f.tasks.set(5, suspended(5, 101));
    const ts = editor(FILE);
    const other = editor('/proj/other.ts');
    const marks = new SuspensionDecorations(f.session);
    f.status.fire({ phase: 'paused' });
    await settle(t);
    assert.deepEqual(f.asked, [3]);
    assert.deepEqual(ts.set, [
      [
        {
          line: 4,
          label: ' ‖ 2 tasks suspended here',
          hover: [
            'md:**Coroscope:** 2 tasks suspended at this line\n\n',
            'md:- ',
            'text:#1 t1: waits here',
            'md:\n',
            'md:- ',
            'text:#2 t2: waits here',
            'md:\n',
          ],
        },
        {
          line: 22,
          label: ' ‖ 1 task suspended here',
          hover: ['md:**Coroscope:** 1 task suspended at this line\n\n', 'md:- ', 'text:#3 t3: waits here', 'md:\n'],
        },
      ],
    ]);
    assert.deepEqual(other.set, [[]]);
    marks.dispose();
  });

  it('while running, a refresh waits 1.5 s after the last; no TypeScript editor visible: nothing asked', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 });
    const f = fakeSession();
    f.tasks.set(3, suspended(3));
    const md = editor('/proj/README.md');
    const marks = new SuspensionDecorations(f.session);
    f.snapshot.fire({ change: { full: false } });
    await settle(t, 0);
    assert.deepEqual(f.asked, [], 'the first refresh found no TypeScript editor');
    editor(FILE);
    f.snapshot.fire({ change: { full: false } });
    await settle(t, 1499);
    assert.deepEqual(f.asked, []);
    await settle(t, 1);
    assert.deepEqual(f.asked, [3]);
    assert.deepEqual(md.set, [[]]);
    marks.dispose();
  });

  it('a pause right after a refresh marks at once, not 1.5 s after', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 });
    const f = fakeSession();
    f.tasks.set(3, suspended(3));
    editor(FILE);
    const marks = new SuspensionDecorations(f.session);
    f.snapshot.fire({ change: { full: false } });
    await settle(t, 0);
    await settle(t, 100);
    f.snapshot.fire({ change: { full: false } });
    f.status.fire({ phase: 'paused' });
    await settle(t, 0);
    assert.deepEqual(f.asked, [3, 3]);
    marks.dispose();
  });

  it('at most 60 tasks asked by taskDetail per refresh; at most twelve in a hover', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 });
    const f = fakeSession();
    for (let id = 1; id <= 61; id++) f.tasks.set(id, suspended(id));
    for (let id = 101; id <= 115; id++) f.tasks.set(id, suspended(id, 3));
    const ts = editor(FILE, 200);
    const marks = new SuspensionDecorations(f.session);
    f.status.fire({ phase: 'paused' });
    await settle(t);
    assert.equal(f.asked.length, 60);
    assert.deepEqual(f.asked.at(-1), 60);
    const crowded = ts.set[0]?.find((m) => m.line === 2);
    assert.equal(crowded?.hover.filter((p) => p.startsWith('text:#')).length, 12);
    assert.equal(crowded?.hover.at(-1), 'text:… and 3 more');
    marks.dispose();
  });

  it('a run that ends clears the marks; once disposed, nothing more', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 });
    const f = fakeSession();
    f.tasks.set(1, suspended(1, 5));
    const ts = editor(FILE);
    const marks = new SuspensionDecorations(f.session);
    f.status.fire({ phase: 'paused' });
    await settle(t);
    f.status.fire({ phase: 'finished' });
    marks.dispose();
    f.status.fire({ phase: 'paused' });
    await settle(t, 5000);
    assert.deepEqual(
      ts.set.map((s) => s.length),
      [1, 0],
    );
    assert.deepEqual(
      stubWindow.decorationTypes.map((d) => d.disposed),
      [true],
    );
  });
});
