// `coroscope run FILE` as a user runs it (the bundled CLI in a child process): the program's
// own output and exit status, its failure printed as a coroutine traceback, a program that
// can never go on told as such, and `--record` giving a recording `coroscope replay` re-runs.
// Needs `npm run build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const cli = join(root, 'bin', 'coroscope.js');

function coroscope(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function inFolder(files: Record<string, string>, body: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-run-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Calls run(main()) itself, as with plain node; prints its arguments; sets its exit status.
const SELF_RUNNING = `const { run, sleep, coroutine, Queue } = require('coroscope');
const worker = coroutine(function* worker(q, name) { const v = yield* q.get(); yield* sleep(0.002); console.log(name + ' got ' + v); });
const main = coroutine(function* main() {
  const q = new Queue();
  const loop = require('coroscope').getRunningLoop();
  const tasks = [loop.createTask(worker(q, 'a'), { name: 'a' }), loop.createTask(worker(q, 'b'), { name: 'b' })];
  yield* q.put(1);
  yield* q.put(2);
  for (const t of tasks) yield* t;
  console.log('args ' + process.argv.slice(2).join(' '));
  process.exitCode = 3;
});
run(main());
`;

// Exports main only; fails three coroutines deep, inside a task main awaits.
const FAILING = `const { sleep, coroutine, getRunningLoop } = require('coroscope');
const parse = coroutine(function* parse(text) { yield* sleep(0.001); throw new SyntaxError('bad page: ' + text); });
const fetchPage = coroutine(function* fetchPage(url) { return yield* parse(url); });
const main = coroutine(function* main() {
  console.log('starting');
  const t = getRunningLoop().createTask(fetchPage('/broken'), { name: 'fetcher' });
  yield* t;
});
module.exports = { main };
`;

test("coroscope run: the program's output, its arguments and its own exit status", () => {
  inFolder({ 'program.js': SELF_RUNNING }, (dir) => {
    const r = coroscope(['run', 'program.js', 'x', '--', '--y'], dir);
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, 'a got 1\nb got 2\nargs x --y\n');
    assert.equal(r.status, 3);
  });
});

test('coroscope run: a failure is printed as a coroutine traceback through the tasks, exit 1', () => {
  inFolder({ 'failing.js': FAILING }, (dir) => {
    const r = coroscope(['run', 'failing.js'], dir);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, 'starting\n');
    assert.match(r.stderr, /^Coroutine traceback of task #\d+/);
    // main's chain at its await, then the awaited task's frames down to the raise, with their lines.
    const order = ['line 7, in main', 'line 3, in fetchPage', 'line 2, in parse', 'SyntaxError: bad page: /broken'].map(
      (s) => r.stderr.indexOf(s),
    );
    assert.ok(
      order.every((i) => i >= 0),
      r.stderr,
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      r.stderr,
    );
  });
});

test('coroscope run: a self-running program whose run() rejects unhandled gets the traceback too', () => {
  inFolder({ 'failing.js': FAILING + 'require("coroscope").run(module.exports.main());\n' }, (dir) => {
    const r = coroscope(['run', 'failing.js'], dir);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /Coroutine traceback[\s\S]*in parse[\s\S]*SyntaxError: bad page/);
  });
});

test("coroscope run: a .ts program runs (the program loader's TypeScript)", () => {
  const ts = `import { run, sleep, coroutine, type Coroutine } from 'coroscope';
const main = coroutine(function* main(): Coroutine<void> { yield* sleep(0.001); const n: number = 41; console.log('ts ' + (n + 1)); });
run(main());
`;
  inFolder({ 'program.ts': ts }, (dir) => {
    const r = coroscope(['run', 'program.ts'], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'ts 42\n');
  });
});

test('coroscope run: a loop nothing can wake is told (the cycle named), not a silent exit 0', () => {
  const deadlock = `const { run, sleep, coroutine, Lock, getRunningLoop } = require('coroscope');
const ledger = new Lock(), audit = new Lock();
const transfer = coroutine(function* transfer(a, b) { yield* a.acquire(); yield* sleep(0.001); yield* b.acquire(); });
const main = coroutine(function* main() {
  const loop = getRunningLoop();
  const t1 = loop.createTask(transfer(ledger, audit), { name: 'transfer-1' });
  const t2 = loop.createTask(transfer(audit, ledger), { name: 'transfer-2' });
  yield* t1; yield* t2;
});
run(main());
`;
  inFolder({ 'deadlock.js': deadlock }, (dir) => {
    const r = coroscope(['run', 'deadlock.js'], dir);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /the program cannot go on/);
    assert.match(r.stderr, /cycle: lock-order cycle: .*"transfer-1".*"transfer-2"/);
  });
});

test('coroscope run: a program that cannot be loaded is refused in one line, exit 1', () => {
  inFolder({ 'nomain.js': 'module.exports = { notMain: 1 };\n' }, (dir) => {
    const missing = coroscope(['run', 'absent.js'], dir);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^coroscope run: program .*absent\.js does not exist\n$/);
    const noMain = coroscope(['run', 'nomain.js'], dir);
    assert.equal(noMain.status, 1);
    assert.match(noMain.stderr, /has no export "main"/);
    assert.equal(coroscope(['run'], dir).status, 2);
  });
});

test('coroscope run --record: coroscope replay re-runs the program from the recording, output and exit status alike', () => {
  inFolder({ 'program.js': SELF_RUNNING, 'failing.js': FAILING }, (dir) => {
    const rec = coroscope(['run', 'program.js', 'x', '--record', 'run.corotrace'], dir);
    assert.equal(rec.status, 3, rec.stderr);
    assert.match(rec.stderr, /^coroscope run: recorded \d+ ticks, \d+ task steps, 0 sockets to run\.corotrace\n$/);
    assert.ok(existsSync(join(dir, 'run.corotrace')));
    const replay = coroscope(['replay', 'run.corotrace'], dir);
    assert.equal(replay.stderr, '');
    assert.equal(replay.stdout, rec.stdout);
    assert.equal(replay.status, 3);

    const failed = coroscope(['run', 'failing.js', '--inspect', '--record', 'failed.corotrace'], dir);
    assert.equal(failed.status, 1);
    const again = coroscope(['replay', 'failed.corotrace'], dir);
    assert.equal(again.status, 1, again.stderr);
    assert.equal(again.stdout, 'starting\n');
    assert.match(again.stderr, /Coroutine traceback[\s\S]*in parse[\s\S]*SyntaxError: bad page: \/broken/);

    // A replay whose program no longer does what was recorded is refused as diverged.
    writeFileSync(join(dir, 'program.js'), SELF_RUNNING.replace('sleep(0.002)', 'sleep(0.002); yield* sleep(0.001)'));
    const diverged = coroscope(['replay', 'run.corotrace'], dir);
    assert.equal(diverged.status, 1);
    assert.match(diverged.stderr, /diverge|differ/i);
  });
});

// An ES module program: imports, a sibling module with state of its own (a counter), main its default export.
const ES_MODULE = {
  'tellers.mjs': `import { coroutine, sleep, gather } from 'coroscope';
import { counted } from './counter.mjs';

const teller = coroutine(function* teller(name, amounts) {
  let total = 0;
  for (const amount of amounts) {
    yield* sleep(0.001 * amount);
    total += amount;
    const n = counted();
    console.log(name + ' ' + amount + ' ' + total + ' #' + n);
  }
  return total;
});

export default coroutine(function* main() {
  const totals = yield* gather(teller('a', [5, 3]), teller('b', [2, 2]));
  console.log('totals ' + totals.join(' '));
});
`,
  'counter.mjs': 'let n = 0;\nexport const counted = () => ++n;\n',
};

test('coroscope run of an ES module program (.mjs): its output; --record, then replay --log lists its hits', () => {
  inFolder(ES_MODULE, (dir) => {
    const r = coroscope(['run', 'tellers.mjs', '--record', 'run.corotrace'], dir);
    assert.equal(r.status, 0, r.stderr);
    // The tellers' lines in the order the run printed them (its clock decides), each count once, then the totals.
    const printed = r.stdout.trimEnd().split('\n');
    assert.equal(printed.pop(), 'totals 8 4');
    assert.deepEqual(printed.map((p) => p.replace(/ #\d$/, '')).sort(), ['a 3 8', 'a 5 5', 'b 2 2', 'b 2 4']);
    assert.deepEqual(
      printed.map((p) => p.slice(-2)),
      ['#1', '#2', '#3', '#4'],
    );
    const line = ES_MODULE['tellers.mjs'].split('\n').findIndex((l) => l.includes('console.log(name')) + 1;
    const logged = coroscope(
      ['replay', 'run.corotrace', '--log', `tellers.mjs:${line}:{name} {amount} {total} #{n}`, '--json'],
      dir,
    );
    assert.equal(logged.status, 0, logged.stderr);
    const { hits } = JSON.parse(logged.stdout) as { hits: Array<{ task: string; line: number; message: string }> };
    assert.deepEqual(
      hits.map((h) => [h.line, h.message]),
      printed.map((p) => [line, p]),
    );
  });
});

test('coroscope replay --dump-tasks-at-tick of a coroscope run recording: the tasks, stacks and locals at that tick', () => {
  inFolder({ 'program.js': SELF_RUNNING }, (dir) => {
    const rec = coroscope(['run', 'program.js', '--record', 'run.corotrace'], dir);
    assert.equal(rec.status, 3, rec.stderr);
    const ticks = Number(/recorded (\d+) ticks/.exec(rec.stderr)?.[1]);
    type Dumped = {
      tick: number;
      tasks: Array<{
        name: string;
        state: string;
        frames: Array<{ function: string; locals: Array<{ name: string; value: string }> }>;
      }>;
    };
    // Tick 1: main ran its first step, the two workers it created wait on the queue (before their first step).
    const first = coroscope(['replay', 'run.corotrace', '--dump-tasks-at-tick', '1', '--json'], dir);
    assert.equal(first.status, 0, first.stderr);
    const at1 = JSON.parse(first.stdout) as Dumped;
    assert.equal(at1.tick, 1);
    assert.deepEqual(at1.tasks.map((t) => t.name).sort(), ['Task-1', 'a', 'b']);
    // The program's own output goes to stderr, so stdout is the dump alone; every tick in range dumps, the same
    // at every replay.
    const last = coroscope(['replay', 'run.corotrace', '--dump-tasks-at-tick', String(ticks), '--json'], dir);
    assert.equal(last.status, 0, last.stderr);
    assert.match(last.stderr, /a got 1\nb got 2\nargs \n/);
    const mid = Math.ceil(ticks / 2);
    const once = coroscope(['replay', 'run.corotrace', '--dump-tasks-at-tick', String(mid), '--json'], dir);
    const twice = coroscope(['replay', 'run.corotrace', '--dump-tasks-at-tick', String(mid), '--json'], dir);
    assert.equal(once.status, 0, once.stderr);
    assert.equal(once.stdout, twice.stdout);
    // Tick 2: each worker took its value off the queue and sleeps, its locals as they were.
    const second = coroscope(['replay', 'run.corotrace', '--dump-tasks-at-tick', '2', '--json'], dir);
    assert.equal(second.status, 0, second.stderr);
    const workers = (JSON.parse(second.stdout) as Dumped).tasks
      .filter((t) => t.name === 'a' || t.name === 'b')
      .map((t) => {
        const frame = t.frames.find((f) => f.function === 'worker');
        const local = (n: string): string | undefined => frame?.locals.find((l) => l.name === n)?.value;
        return [t.name, t.state, t.frames.map((f) => f.function), local('name'), local('v')];
      });
    assert.deepEqual(workers, [
      ['a', 'suspended', ['worker', 'sleep'], '"a"', '1'],
      ['b', 'suspended', ['worker', 'sleep'], '"b"', '2'],
    ]);
    const text = coroscope(['replay', 'run.corotrace', '--dump-tasks-at-tick', '1'], dir);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^\*\*\* Replayed to tick 1 \*\*\*\n/);
    const beyond = coroscope(['replay', 'run.corotrace', '--dump-tasks-at-tick', String(ticks + 1)], dir);
    assert.equal(beyond.status, 2);
    assert.equal(beyond.stdout, '');
    assert.match(beyond.stderr, new RegExp(`has ${ticks} ticks`));
  });
});

// Two tellers print each amount as they count it: the lines a logpoint there must list, in the same order.
const TELLERS = `const { run, sleep, coroutine, getRunningLoop } = require('coroscope');
const teller = coroutine(function* teller(name, amounts) {
  let total = 0;
  for (const amount of amounts) {
    yield* sleep(0.001 * amount);
    total += amount;
    console.log(name + ' ' + amount + ' ' + total);
  }
  return total;
});
const main = coroutine(function* main() {
  const loop = getRunningLoop();
  const tasks = [loop.createTask(teller('a', [3, 1]), { name: 'a' }), loop.createTask(teller('b', [2, 2]), { name: 'b' })];
  for (const t of tasks) yield* t;
});
`;

test('coroscope replay --log of a coroscope run recording: the hits are the lines the run printed there', () => {
  const started = {
    'runs-itself.js': `${TELLERS}run(main());\n`,
    'exports-main.js': `${TELLERS}module.exports = { main };\n`,
  };
  inFolder(started, (dir) => {
    for (const program of Object.keys(started)) {
      const rec = coroscope(['run', program, 'x', '--record', 'run.corotrace'], dir);
      assert.equal(rec.status, 0, rec.stderr);
      const printed = rec.stdout.trimEnd().split('\n');
      assert.equal(printed.length, 4, rec.stdout);
      const line = TELLERS.split('\n').findIndex((l) => l.includes('console.log(name')) + 1;
      const logged = coroscope(
        ['replay', 'run.corotrace', '--log', `${program}:${line}:{name} {amount} {total}`, '--json'],
        dir,
      );
      assert.equal(logged.status, 0, `${program}: ${logged.stderr}`);
      const { hits } = JSON.parse(logged.stdout) as { hits: Array<{ task: string; line: number; message: string }> };
      assert.deepEqual(
        hits.map((h) => h.message),
        printed,
        program,
      );
      assert.deepEqual(
        hits.map((h) => [h.task, h.line]),
        printed.map((p) => [p.split(' ')[0], line]),
        program,
      );
    }
  });
});

// Each teller draws its amounts and stamps them: a replay must read what the run read, or the totals differ.
const DRAWS = `const { run, sleep, coroutine, getRunningLoop } = require('coroscope');
const teller = coroutine(function* teller(name) {
  let total = 0;
  for (let i = 0; i < 3; i++) {
    const amount = Math.floor(Math.random() * 100);
    yield* sleep(amount / 10000);
    total += amount;
    const id = require('node:crypto').randomUUID() + ':' + process.hrtime.bigint();
    console.log(name + ' ' + amount + ' ' + total + ' ' + id + ' ' + Date.now() + ' ' + performance.now() + ' ' + new Date().toISOString());
  }
});
const main = coroutine(function* main() {
  const loop = getRunningLoop();
  const tasks = [loop.createTask(teller('a'), { name: 'a' }), loop.createTask(teller('b'), { name: 'b' })];
  for (const t of tasks) yield* t;
});
run(main());
`;

test('coroscope replay --log of a run that read random numbers, ids and clocks: the values the run printed', () => {
  inFolder({ 'draws.js': DRAWS }, (dir) => {
    const rec = coroscope(['run', 'draws.js', '--record', 'run.corotrace'], dir);
    assert.equal(rec.status, 0, rec.stderr);
    const printed = rec.stdout.trimEnd().split('\n');
    assert.equal(printed.length, 6, rec.stdout);
    const line = DRAWS.split('\n').findIndex((l) => l.includes('console.log(name')) + 1;
    const message = '{name} {amount} {total} {id} {Date.now()} {performance.now()} {new Date().toISOString()}';
    const logged = coroscope(['replay', 'run.corotrace', '--log', `draws.js:${line}:${message}`, '--json'], dir);
    assert.equal(logged.status, 0, logged.stderr);
    const { hits } = JSON.parse(logged.stdout) as { hits: Array<{ message: string }> };
    // The logpoint's own reads are the debugger's, not the program's: only the program's values are compared.
    assert.deepEqual(
      hits.map((h) => h.message.split(' ').slice(0, 4).join(' ')),
      printed.map((p) => p.split(' ').slice(0, 4).join(' ')),
    );
    const replayed = coroscope(['replay', 'run.corotrace'], dir);
    assert.equal(replayed.status, 0, replayed.stderr);
    assert.deepEqual(replayed.stdout.trimEnd().split('\n'), printed);
  });
});

test('coroscope run --inspect in a socket folder others can open: the program runs, ps is said not to answer', () => {
  inFolder({ 'program.js': SELF_RUNNING }, (dir) => {
    mkdirSync(join(dir, 'xdg', 'coroscope'), { recursive: true });
    chmodSync(join(dir, 'xdg', 'coroscope'), 0o755);
    const r = coroscope(['run', '--inspect', 'program.js'], dir, { ...process.env, XDG_RUNTIME_DIR: join(dir, 'xdg') });
    assert.equal(r.status, 3);
    assert.equal(r.stdout, 'a got 1\nb got 2\nargs \n');
    assert.match(
      r.stderr,
      /^coroscope run: --inspect: coroscope ps\/pstree will not answer: refusing to open an inspect socket: .* is open to other users \(mode 755; it must be 700\)\n$/,
    );
    assert.deepEqual(readdirSync(join(dir, 'xdg', 'coroscope')), [], 'no socket was opened there');
  });
});
