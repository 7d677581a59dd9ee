// `coroscope ps PID` and `coroscope pstree PID` against real processes: a `coroscope run
// --inspect` program whose tasks wait (on a Queue, an Event, a long sleep, and two Locks
// taken in opposite order: a cycle, each lock named by its variable with its holder's
// acquire line, as the panel names it), a `coroscope crawl --demo --inspect`, and refusals (a
// process without --inspect, a dead PID, bad arguments). The inspected processes are killed
// by the tests. Needs `npm run build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectSocketPath } from '../../../runtime/cli/inspect-socket-path';
import { lineOf } from '../../source-line';

const root = join(__dirname, '..', '..', '..');
const cli = join(root, 'bin', 'coroscope.js');

function coroscope(args: string[], cwd = root): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Starts `args` (a coroscope command) and resolves once `ready` appears on its stdout (or its inspect socket
 * exists).
 */
function startInspected(args: string[], cwd: string, ready: RegExp | 'socket'): Promise<ChildProcess> {
  const child = spawn(process.execPath, [cli, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time: ${out}${err}`)), 30_000);
    const check = (): void => {
      const ok = ready === 'socket' ? existsSync(inspectSocketPath(child.pid!)) : ready.test(out);
      if (ok) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(child);
      }
    };
    const poll = setInterval(check, 50);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      check();
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`exited ${code} before it was ready: ${out}${err}`));
    });
  });
}

/** Kills `child`, and removes the inspect socket a killed process leaves (no exit handler runs). */
async function stop(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
  if (child.pid !== undefined) rmSync(inspectSocketPath(child.pid), { force: true });
}

const WAITING = `const { run, sleep, coroutine, Queue, Event, Lock, getRunningLoop } = require('coroscope');
const ledger = new Lock();
const auditLog = new Lock();
const consumer = coroutine(function* consumer(q) { while (true) { const job = yield* q.get(); console.log('job ' + job); } });
const waiter = coroutine(function* waiter(ev) { yield* ev.wait(); });
const transfer = coroutine(function* transfer(first, second) {
  yield* first.acquire();
  yield* sleep(0.01);
  yield* second.acquire();
});
const main = coroutine(function* main() {
  const loop = getRunningLoop();
  loop.createTask(consumer(new Queue()), { name: 'consumer' });
  loop.createTask(waiter(new Event()), { name: 'waiter' });
  loop.createTask(transfer(ledger, auditLog), { name: 'debit' });
  loop.createTask(transfer(auditLog, ledger), { name: 'credit' });
  yield* sleep(0.05);
  console.log('ready');
  yield* sleep(600);
});
run(main());
`;

test('ps and pstree print the tasks of a running coroscope run --inspect, the lock cycle named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-ps-'));
  writeFileSync(join(dir, 'waiting.js'), WAITING);
  const child = await startInspected(['run', '--inspect', 'waiting.js'], dir, /ready/);
  try {
    const ps = coroscope(['ps', String(child.pid)], dir);
    assert.equal(ps.status, 0, ps.stderr);
    const rows = ps.stdout.split('\n');
    assert.match(rows[1]!, /^task id\s+task name\s+state\s+awaiting\s+awaited by\s+innermost frame$/);
    const row = (name: string): string =>
      rows.find((r) => new RegExp(`^\\d+\\s+${name}\\s`).test(r)) ?? assert.fail(`no row for ${name}:\n${ps.stdout}`);
    // A resource with no variable (made as an argument) by its class and creation line, as the panel shows it.
    const line = (text: string): number => lineOf(join(dir, 'waiting.js'), text);
    assert.match(
      row('consumer'),
      new RegExp(`suspended\\s+queue\\.get Queue made at waiting\\.js:${line('consumer(new Queue())')}\\s`),
    );
    assert.match(
      row('waiter'),
      new RegExp(`suspended\\s+event Event made at waiting\\.js:${line('waiter(new Event())')}\\s`),
    );
    // Each lock named as the program names it (its variable, the line that made it), with its holder and the line
    // where the holder took it: as the panel's await graph and the deadlock stop say it.
    const made = (name: string): string =>
      `waiting\\.js:${lineOf(join(dir, 'waiting.js'), `const ${name} = new Lock()`)}`;
    const took = `waiting\\.js:${lineOf(join(dir, 'waiting.js'), 'yield* first.acquire();')}`;
    assert.match(
      row('debit'),
      new RegExp(
        `suspended\\s+lock auditLog \\(Lock, ${made('auditLog')}\\), held by Task #\\d+ "credit" since ${took}\\s`,
      ),
    );
    assert.match(
      row('credit'),
      new RegExp(`suspended\\s+lock ledger \\(Lock, ${made('ledger')}\\), held by Task #\\d+ "debit" since ${took}\\s`),
    );
    assert.match(row('Task-\\d+'), /suspended\s+sleep .*\s+\S*sleep\.ts:\d+ sleep/);
    assert.match(
      ps.stdout,
      /^cycle: lock-order cycle: each task holds what the next one waits for: .*"debit".*"credit"/m,
    );

    const tree = coroscope(['pstree', String(child.pid)], dir);
    assert.equal(tree.status, 0, tree.stderr);
    assert.match(tree.stdout, /^Tasks at loop time [\d.]+ s, tick \d+: 5 live tasks$/m);
    // Each task under main (which created them), with its coroutine stack: its own frame in waiting.js, then
    // the runtime's.
    assert.match(tree.stdout, /└── \(T\) #\d+ Task-\d+ \[suspended/);
    assert.match(
      tree.stdout,
      /├── \(T\) #\d+ debit \[suspended, 2 steps\]\n\s*│\s+transfer waiting\.js:9:\d+ \(no source map\)\n\s*│\s+acquire \S*lock\.ts:\d+\n\s*│\s+awaits lock auditLog \(Lock, waiting\.js:3\), held by Task #\d+ "credit" since waiting\.js:7\n/,
    );
    assert.match(tree.stdout, /consumer waiting\.js:4:\d+/);
    assert.match(tree.stdout, /^cycle: lock-order cycle: .*"debit".*"credit"/m);

    // The program runs on as it would have: asked again, it answers the same tasks.
    const again = coroscope(['ps', String(child.pid)], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout.split('\n').filter((r) => /^\d+\s/.test(r)).length, 5);
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('pstree names a cycle of tasks awaiting each other and still prints them', async () => {
  const cyclic = `const { run, sleep, coroutine, getRunningLoop } = require('coroscope');
const tasks = {};
const ping = coroutine(function* ping() { yield* sleep(0.01); yield* tasks.pong; });
const pong = coroutine(function* pong() { yield* sleep(0.01); yield* tasks.ping; });
const main = coroutine(function* main() {
  const loop = getRunningLoop();
  tasks.ping = loop.createTask(ping(), { name: 'ping' });
  tasks.pong = loop.createTask(pong(), { name: 'pong' });
  yield* sleep(0.05);
  console.log('ready');
  yield* sleep(600);
});
run(main());
`;
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-ps-'));
  writeFileSync(join(dir, 'cyclic.js'), cyclic);
  const child = await startInspected(['run', 'cyclic.js', '--inspect'], dir, /ready/);
  try {
    const tree = coroscope(['pstree', String(child.pid)], dir);
    assert.equal(tree.status, 0, tree.stderr);
    assert.match(tree.stdout, /\(T\) #\d+ ping \[suspended/);
    assert.match(tree.stdout, /\(T\) #\d+ pong \[suspended/);
    assert.match(
      tree.stdout,
      /^cycle: cycle of tasks awaiting each other: Task #\d+ "p[io]ng" → Task #\d+ "p[io]ng" → Task #\d+ "p[io]ng"$/m,
    );
    const ps = coroscope(['ps', String(child.pid)], dir);
    assert.equal(ps.status, 0, ps.stderr);
    assert.match(ps.stdout, /^\d+\s+ping\s+suspended\s+Task #\d+ "pong"/m);
    assert.match(ps.stdout, /^cycle: cycle of tasks awaiting each other/m);
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ps answers for a coroscope crawl --inspect too', async () => {
  const child = await startInspected(
    ['crawl', '--demo', '--pages', '200', '--quiet', '--inspect', '--max-tasks', '5'],
    root,
    'socket',
  );
  try {
    // The socket is open before the crawl's first tick: ask until its workers have started.
    let ps = coroscope(['ps', String(child.pid)]);
    for (let i = 0; i < 50 && ps.status === 0 && !/worker-/.test(ps.stdout); i++) {
      await new Promise((r) => setTimeout(r, 100));
      ps = coroscope(['ps', String(child.pid)]);
    }
    assert.equal(ps.status, 0, ps.stderr);
    assert.match(ps.stdout, /^\d+\s+crawl\s+suspended/m);
    assert.match(ps.stdout, /^\d+\s+worker-\d+\s/m);
  } finally {
    await stop(child);
  }
});

test('a process without --inspect, a dead PID and bad arguments are refused in one line', async () => {
  const plain = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    const r = coroscope(['ps', String(plain.pid)]);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^coroscope ps: process ${plain.pid} was not started with --inspect .*\\n$`));
    const t = coroscope(['pstree', String(plain.pid)]);
    assert.equal(t.status, 1);
    assert.match(t.stderr, /^coroscope pstree: process \d+ was not started with --inspect/);
  } finally {
    await stop(plain);
  }
  const dead = coroscope(['ps', String(plain.pid)]);
  assert.equal(dead.status, 1);
  assert.match(dead.stderr, new RegExp(`^coroscope ps: no process with PID ${plain.pid} is running\\n$`));
  assert.equal(coroscope(['ps']).status, 2);
  assert.equal(coroscope(['ps', 'abc']).status, 2);
});

test('asking a recorded run for its tasks does not change it: its recording replays exactly', async () => {
  const ticking = `const { run, sleep, coroutine, Queue, getRunningLoop } = require('coroscope');
const producer = coroutine(function* producer(q) { for (let i = 0; i < 150; i++) { yield* q.put(i); yield* sleep(0.05); } yield* q.put(null); });
const main = coroutine(function* main() {
  const q = new Queue();
  getRunningLoop().createTask(producer(q), { name: 'producer' });
  console.log('ready');
  let sum = 0;
  for (let v = yield* q.get(); v !== null; v = yield* q.get()) sum += v * getRunningLoop().time();
  console.log('done ' + (sum > 0));
});
run(main());
`;
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-ps-'));
  writeFileSync(join(dir, 'ticking.js'), ticking);
  const child = await startInspected(['run', 'ticking.js', '--inspect', '--record', 'ticking.corotrace'], dir, /ready/);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    for (let i = 0; i < 3; i++) {
      const ps = coroscope([i % 2 === 0 ? 'ps' : 'pstree', String(child.pid)], dir);
      assert.equal(ps.status, 0, ps.stderr);
      assert.match(ps.stdout, /producer/);
    }
    assert.equal(await exited, 0);
    const replay = coroscope(['replay', 'ticking.corotrace'], dir);
    assert.equal(replay.status, 0, replay.stderr);
    assert.equal(replay.stdout, 'ready\ndone true\n');
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("another user's process is refused in one line", async (t) => {
  // Starting a process as another user needs root; as any other user, process 1 (init) is root's.
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!asRoot && !existsSync('/proc/1/status')) return t.skip('needs root, or /proc to find a process of another user');
  const other = asRoot
    ? spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore', uid: 65534, gid: 65534 })
    : null;
  try {
    const pid = other?.pid ?? 1;
    await new Promise((r) => setTimeout(r, 200));
    const r = coroscope(['ps', String(pid)]);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `coroscope ps: process ${pid} belongs to another user: only its owner can inspect it\n`);
  } finally {
    if (other !== null) await stop(other);
  }
});
