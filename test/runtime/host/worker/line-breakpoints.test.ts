// LineBreakpoints (runtime/host/worker/line-breakpoints.ts) over a fake V8 Debugger (FakeDebugger: the
// breakpoints set, one a position, as V8 keeps them) and real LoadedScripts holding a plain JavaScript file
// of a temp folder (its lines with code told as V8's possible breakpoints would): each breakpoint's status
// (on its line, slid to the next line with code, no code, a file not readable, a bad hit condition), the
// V8 calls made in order (conditions live only; a logpoint's printing, its hit count kept by key), a file's
// breakpoints replaced, a file loaded later, and the breakpoints as a search of the past arms them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BreakpointStatus } from '../../../../protocol/host-protocol';
import { LineBreakpoints } from '../../../../runtime/host/worker/line-breakpoints';
import { LoadedScripts } from '../../../../runtime/host/worker/loaded-scripts';

/** The program's lines; those with code are where V8 could break (column 2 inside `main`). */
const SOURCE = [
  'function main() {', // 1
  '  let a = 1;', // 2
  '', // 3
  '  // a comment', // 4
  '  a += 1;', // 5
  '  return a;', // 6
  '}', // 7
].join('\n');
const CODE_LINES = [2, 5, 6];

const LIVE = 'globalThis.__coroscopeLine.live()';

let dir = '';
let file = '';
let url = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'coroscope-line-breakpoints-'));
  file = join(dir, 'program.js');
  url = pathToFileURL(file).href;
  writeFileSync(file, SOURCE);
});
after(() => rmSync(dir, { recursive: true, force: true }));

type Call = [method: string, params: Record<string, unknown>];

/** V8's Debugger as LineBreakpoints uses it: one breakpoint a position (a second one there is refused). */
class FakeDebugger {
  readonly calls: Call[] = [];
  private readonly set = new Map<string, string>();
  private next = 1;

  readonly post = async <T>(method: string, params: object): Promise<T> => {
    const p = params as Record<string, unknown>;
    this.calls.push([method, p]);
    if (method === 'Debugger.setBreakpointByUrl') {
      const at = `${p.url}:${p.lineNumber}:${p.columnNumber}`;
      if ([...this.set.values()].includes(at)) throw new Error('Breakpoint at specified location already exists.');
      const breakpointId = `bp${this.next++}`;
      this.set.set(breakpointId, at);
      return { breakpointId, locations: [] } as T;
    }
    if (method === 'Debugger.removeBreakpoint') {
      this.set.delete(String(p.breakpointId));
      return {} as T;
    }
    throw new Error(`unexpected ${method}`);
  };

  /** The calls since `from`, each as [method, url line, condition] or [method, id]. */
  since(from: number): unknown[] {
    return this.calls
      .slice(from)
      .map(([m, p]) =>
        m === 'Debugger.setBreakpointByUrl'
          ? [m, `${p.lineNumber}:${p.columnNumber}`, p.condition]
          : [m, p.breakpointId],
      );
  }
}

/** Loaded scripts holding the temp program as script `id` (its lines with code known). */
function scriptsWithProgram(id = '42'): LoadedScripts {
  const scripts = new LoadedScripts();
  assert.equal(scripts.add({ scriptId: id, url }), 'plain');
  scripts.indexPlain(
    id,
    CODE_LINES.map((line) => ({ scriptId: id, lineNumber: line - 1, columnNumber: 2 })),
  );
  return scripts;
}

function setUp(scripts = scriptsWithProgram()): { v8: FakeDebugger; breakpoints: LineBreakpoints } {
  const v8 = new FakeDebugger();
  return { v8, breakpoints: new LineBreakpoints(v8.post, Promise.resolve(), scripts) };
}

test('each breakpoint on its line, or slid to the next line with code; none past the code; V8 told live-only', async () => {
  const { v8, breakpoints } = setUp();
  const statuses = await breakpoints.setLineBreakpoints(file, [
    { file, line: 2 },
    { file, line: 3 },
    { file, line: 7 },
  ]);
  assert.deepEqual(statuses, [
    { file, line: 2, verified: true },
    { file, line: 5, verified: true, message: 'moved to line 5, the next line with code' },
    {
      file,
      line: 7,
      verified: false,
      message: `no loaded code on ${file}:7 (set again once its module is loaded)`,
    },
  ] satisfies BreakpointStatus[]);
  assert.deepEqual(v8.since(0), [
    ['Debugger.setBreakpointByUrl', '1:2', LIVE],
    ['Debugger.setBreakpointByUrl', '4:2', LIVE],
  ]);
  assert.equal(v8.calls[0]![1].url, url);
  assert.equal(breakpoints.entryOf('bp1')?.line, 2);
  assert.equal(breakpoints.entryOf('bp2')?.line, 3);
  assert.equal(breakpoints.entryOf('bp3'), undefined);
});

test('a breakpoint slid onto a line that has one too: both verified there, not said to have no code', async () => {
  const { v8, breakpoints } = setUp();
  const statuses = await breakpoints.setLineBreakpoints(file, [
    { file, line: 4 },
    { file, line: 5 },
  ]);
  assert.deepEqual(statuses, [
    { file, line: 5, verified: true, message: 'moved to line 5, the next line with code' },
    { file, line: 5, verified: true, message: "at the place of line 4's breakpoint, which stops there" },
  ] satisfies BreakpointStatus[]);
  // V8 keeps one breakpoint a position: asked once.
  assert.deepEqual(v8.since(0), [['Debugger.setBreakpointByUrl', '4:2', LIVE]]);
});

test("setting a file's breakpoints replaces its previous ones: their V8 breakpoints removed first", async () => {
  const { v8, breakpoints } = setUp();
  await breakpoints.setLineBreakpoints(file, [
    { file, line: 2 },
    { file, line: 6 },
  ]);
  const from = v8.calls.length;
  const statuses = await breakpoints.setLineBreakpoints(file, [{ file, line: 5, condition: 'a > 1' }]);
  assert.deepEqual(statuses, [{ file, line: 5, verified: true }]);
  assert.deepEqual(v8.since(from), [
    ['Debugger.removeBreakpoint', 'bp1'],
    ['Debugger.removeBreakpoint', 'bp2'],
    ['Debugger.setBreakpointByUrl', '4:2', `${LIVE} && (a > 1)`],
  ]);
  assert.equal(breakpoints.entryOf('bp1'), undefined);
  assert.equal(breakpoints.entryOf('bp3')?.condition, 'a > 1');
  // None left: all removed, nothing set.
  const to = v8.calls.length;
  assert.deepEqual(await breakpoints.setLineBreakpoints(file, []), []);
  assert.deepEqual(v8.since(to), [['Debugger.removeBreakpoint', 'bp3']]);
});

test('refused: a hit condition not understood (nothing set), a file that cannot be read', async () => {
  const { v8, breakpoints } = setUp();
  const statuses = await breakpoints.setLineBreakpoints(file, [{ file, line: 2, hitCondition: 'often' }]);
  assert.deepEqual(statuses, [
    { file, line: 2, verified: false, message: 'hit condition "often" is not one of N, >=N, >N, ==N, <N, <=N, %N' },
  ]);
  const missing = join(dir, 'missing.js');
  assert.deepEqual(await breakpoints.setLineBreakpoints(missing, [{ file, line: 1 }]), [
    { file: missing, line: 1, verified: false, message: `cannot read ${missing}` },
  ]);
  assert.deepEqual(v8.calls, []);
});

test('logpoints: a condition that prints and is false; one with a hit condition counted by a key of its own', async () => {
  const { v8, breakpoints } = setUp();
  await breakpoints.setLineBreakpoints(file, [
    { file, line: 2, logMessage: 'a is {a}' },
    { file, line: 5, logMessage: 'twice `{a}`', condition: 'a > 0', hitCondition: '2' },
  ]);
  const conditions = v8.calls.map(([, p]) => String(p.condition));
  assert.equal(conditions[0], `${LIVE} && ((console.log(\`a is \${a}\`), false))`);
  const key = breakpoints.entryOf('bp2')?.logKey;
  assert.ok(typeof key === 'number');
  assert.equal(
    conditions[1],
    `${LIVE} && ((a > 0) && globalThis.__coroscopeLine.logHit(${key}, "2") && (console.log(\`twice \\\`\${a}\\\`\`), false))`,
  );
  assert.equal(breakpoints.entryOf('bp1')?.logKey, null);
  // Set again, the same logpoint counts by a new key (its hits from 0).
  await breakpoints.setLineBreakpoints(file, [{ file, line: 5, logMessage: 'twice `{a}`', hitCondition: '2' }]);
  assert.equal(breakpoints.entryOf('bp3')?.logKey, key + 1);
});

test('a file not loaded yet: unverified, then set once a script holding it is parsed', async () => {
  const scripts = new LoadedScripts();
  const { v8, breakpoints } = setUp(scripts);
  const [status] = await breakpoints.setLineBreakpoints(file, [{ file, line: 3, condition: 'a' }]);
  assert.equal(status?.verified, false);
  assert.deepEqual(v8.calls, []);
  // Parsed, not indexed yet: it does not hold the file's lines.
  scripts.add({ scriptId: '7', url });
  breakpoints.scriptParsed('7');
  scripts.indexPlain('7', [{ scriptId: '7', lineNumber: 4, columnNumber: 2 }]);
  breakpoints.scriptParsed('7');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(v8.since(0), [['Debugger.setBreakpointByUrl', '4:2', `${LIVE} && (a)`]]);
  // The entry kept: the one the client set.
  assert.equal(breakpoints.entryOf('bp1')?.line, 3);
  assert.equal(breakpoints.entryOf('bp1')?.spec.condition, 'a');
  // All placed now: another script parsed changes nothing.
  breakpoints.scriptParsed('7');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(v8.calls.length, 1);
});

test('breakpoints sharing a place once their file is loaded: set once, and not set again at each parse', async () => {
  const scripts = new LoadedScripts();
  const { v8, breakpoints } = setUp(scripts);
  await breakpoints.setLineBreakpoints(file, [
    { file, line: 4 },
    { file, line: 5 },
  ]);
  scripts.add({ scriptId: '8', url });
  scripts.indexPlain('8', [{ scriptId: '8', lineNumber: 4, columnNumber: 2 }]);
  breakpoints.scriptParsed('8');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(v8.since(0), [['Debugger.setBreakpointByUrl', '4:2', LIVE]]);
  // Each placed (one by the other's V8 breakpoint): a script parsed again sets nothing again.
  breakpoints.scriptParsed('8');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(v8.since(1), []);
});

test('as a search of the past arms them: logpoints apart, hit conditions with the tick they were set in', async () => {
  const { breakpoints } = setUp();
  await breakpoints.setLineBreakpoints(file, [
    { file, line: 2, condition: ' ', hitCondition: '>1' },
    { file, line: 5, logMessage: 'a={a}', hitCondition: '%2' },
    { file, line: 6, condition: 'a === 2' },
  ]);
  assert.deepEqual(breakpoints.armedBreakpoints(), [
    { file, line: 2, hitCondition: '>1' },
    { file, line: 6, condition: 'a === 2' },
  ]);
  assert.deepEqual(breakpoints.armedLogpoints(), [{ file, line: 5, logMessage: 'a={a}', hitCondition: '%2' }]);

  // Set in tick 7 while the run went: counted since then, the live hits of tick 7 before it told (noteLogHit).
  const other = join(dir, 'other.js');
  writeFileSync(other, SOURCE);
  const scripts = new LoadedScripts();
  scripts.add({ scriptId: '1', url: pathToFileURL(other).href });
  scripts.indexPlain('1', [{ scriptId: '1', lineNumber: 1, columnNumber: 2 }]);
  const { breakpoints: running } = setUp(scripts);
  await running.setLineBreakpoints(other, [{ file: other, line: 2, logMessage: 'hit', hitCondition: '3' }], null, {
    tick: 7,
  });
  const key = running.entryOf('bp1')!.logKey!;
  running.noteLogHit(key, 7);
  running.noteLogHit(key, 7);
  running.noteLogHit(key, 8);
  running.noteLogHit(key, 9);
  assert.deepEqual(running.armedLogpoints(), [
    { file: other, line: 2, logMessage: 'hit', hitCondition: '3', hitsSince: { tick: 7, before: 2 } },
  ]);
  // A new run counts from its start.
  running.newRun();
  assert.deepEqual(running.armedLogpoints(), [{ file: other, line: 2, logMessage: 'hit', hitCondition: '3' }]);
});
