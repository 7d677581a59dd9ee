// The runtime as an npm package: `npm pack` of the project gives a tarball another project
// installs (offline, from the npm cache: its one dependency, htmlparser2, is there after
// `npm ci`), whose `coroscope` import runs with plain Node (CommonJS and ESM), type-checks
// through the package's declarations (exports '.' types) with the user's own TypeScript, and
// whose `coroscope` bin runs the same program (`npx coroscope run`), and whose `coroscope ps` and
// `pstree` print the tasks of a running `coroscope run --inspect` (issue 27's "Done when"). Needs `npm run build`
// first (the bundles); the declarations are emitted here (`npm run build:types`, which
// `npm pack` runs as prepack), and the pack skips the scripts so the bundles other tests use
// are not rebuilt under them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distBundle } from '../../dist-bundles';
import { inspectSocketPath } from '../../../runtime/cli/inspect-socket-path';

const root = join(__dirname, '..', '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function sh(
  cmd: string,
  args: string[],
  cwd: string,
  timeoutMs = 240_000,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
  });
  return {
    status: r.status,
    stdout: r.stdout ?? '',
    stderr: `${r.stderr ?? ''}${r.error !== undefined ? String(r.error) : ''}`,
  };
}

const PROGRAM_JS = `const { run, sleep, coroutine, Queue } = require('coroscope');
const producer = coroutine(function* producer(q) { for (let i = 1; i <= 3; i++) { yield* q.put(i); yield* sleep(0.001); } yield* q.put(null); });
const main = coroutine(function* main() {
  const q = new Queue();
  const loop = require('coroscope').getRunningLoop();
  loop.createTask(producer(q), { name: 'producer' });
  const got = [];
  for (let v = yield* q.get(); v !== null; v = yield* q.get()) got.push(v);
  console.log('consumed ' + got.join(','));
  return got.length;
});
run(main()).then((n) => console.log('main returned ' + n));
`;

const PROGRAM_MJS = `import { run, sleep, coroutine, Event } from 'coroscope';
const main = coroutine(function* main() { const ev = new Event(); ev.set(); yield* ev.wait(); yield* sleep(0.001); return 'esm ok'; });
console.log(await run(main()));
`;

const PROGRAM_TS = `import { run, sleep, coroutine, Queue, type Coroutine } from 'coroscope';
const main = coroutine(function* main(): Coroutine<number> {
  const q = new Queue<number>();
  yield* q.put(41);
  yield* sleep(0.001);
  const n: number = yield* q.get();
  return n + 1;
});
run(main()).then((n: number) => console.log('ts returned ' + n));
`;

/** Two tasks that take two Locks in opposite order, then hang; `ready` once both wait. */
const HANGING_JS = `const { run, sleep, coroutine, Lock, getRunningLoop } = require('coroscope');
const ledger = new Lock();
const auditLog = new Lock();
const transfer = coroutine(function* transfer(first, second) {
  yield* first.acquire();
  yield* sleep(0.01);
  yield* second.acquire();
});
const main = coroutine(function* main() {
  getRunningLoop().createTask(transfer(ledger, auditLog), { name: 'debit' });
  getRunningLoop().createTask(transfer(auditLog, ledger), { name: 'credit' });
  yield* sleep(0.05);
  console.log('ready');
  yield* sleep(600);
});
run(main());
`;

/** Starts `args` in `cwd` and resolves once its stdout has said `ready`. */
function startUntilReady(args: string[], cwd: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time: ${out}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/ready/.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before it was ready: ${out}`));
    });
  });
}

test('npm pack gives a tarball that a new project installs and runs with plain node, its TypeScript and npx coroscope run', {
  timeout: 600_000,
}, async () => {
  assert.ok(existsSync(distBundle('cli.js')) && existsSync(distBundle('runtime/index.js')));
  const work = mkdtempSync(join(tmpdir(), 'coroscope-pack-'));
  try {
    const types = sh(npm, ['run', 'build:types'], root);
    assert.equal(types.status, 0, types.stderr);
    const pack = sh(npm, ['pack', '--ignore-scripts', '--pack-destination', work], root);
    assert.equal(pack.status, 0, pack.stderr);
    const tarballs = readdirSync(work).filter((f) => f.endsWith('.tgz'));
    assert.equal(tarballs.length, 1, pack.stdout);
    const tarball = join(work, tarballs[0]!);

    const app = join(work, 'app');
    spawnSync('mkdir', [app]);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'my-coroutines', version: '1.0.0', private: true }),
    );
    let install = sh(npm, ['install', '--offline', '--no-audit', tarball], app);
    if (install.status !== 0) install = sh(npm, ['install', '--prefer-offline', '--no-audit', tarball], app);
    assert.equal(install.status, 0, install.stderr);
    assert.ok(
      existsSync(join(app, 'node_modules', 'coroscope', 'dist', 'types', 'coroscope', 'runtime', 'index.d.ts')),
      'the declarations are in the package',
    );

    writeFileSync(join(app, 'program.js'), PROGRAM_JS);
    const plain = sh(process.execPath, ['program.js'], app);
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(plain.stdout, 'consumed 1,2,3\nmain returned 3\n');

    writeFileSync(join(app, 'program.mjs'), PROGRAM_MJS);
    const esm = sh(process.execPath, ['program.mjs'], app);
    assert.equal(esm.status, 0, esm.stderr);
    assert.equal(esm.stdout, 'esm ok\n');

    // npx finds the installed bin (node_modules/.bin/coroscope): no network.
    const viaCli = sh(npm, ['exec', '--offline', '--', 'coroscope', 'run', 'program.js'], app);
    assert.equal(viaCli.status, 0, viaCli.stderr);
    assert.equal(viaCli.stdout, 'consumed 1,2,3\nmain returned 3\n');

    // The installed bin's `run --inspect`, asked by the installed bin's `ps` and `pstree` from another process:
    // its tasks, each lock by its variable, and the cycle.
    writeFileSync(join(app, 'hanging.js'), HANGING_JS);
    const hanging = await startUntilReady(
      [join(app, 'node_modules', 'coroscope', 'bin', 'coroscope.js'), 'run', '--inspect', 'hanging.js'],
      app,
    );
    try {
      const ps = sh(npm, ['exec', '--offline', '--', 'coroscope', 'ps', String(hanging.pid)], app);
      assert.equal(ps.status, 0, ps.stderr);
      assert.match(
        ps.stdout,
        /^\d+\s+debit\s+suspended\s+lock auditLog \(Lock, hanging\.js:3\), held by Task #\d+ "credit"/m,
      );
      assert.match(
        ps.stdout,
        /^\d+\s+credit\s+suspended\s+lock ledger \(Lock, hanging\.js:2\), held by Task #\d+ "debit"/m,
      );
      assert.match(ps.stdout, /^cycle: lock-order cycle: /m);
      const tree = sh(npm, ['exec', '--offline', '--', 'coroscope', 'pstree', String(hanging.pid)], app);
      assert.equal(tree.status, 0, tree.stderr);
      assert.match(tree.stdout, /^Tasks at loop time [\d.]+ s, tick \d+: 3 live tasks$/m);
      assert.match(tree.stdout, /\(T\) #\d+ debit \[suspended/);
      assert.match(tree.stdout, /transfer hanging\.js:7:\d+/);
    } finally {
      hanging.kill('SIGKILL');
      // A killed process runs no exit handler: its inspect socket is removed here (the temp-folder check).
      if (hanging.pid !== undefined) rmSync(inspectSocketPath(hanging.pid), { force: true });
    }

    // The user's own TypeScript (here the project's compiler, as a user's devDependency) finds the
    // package's types. skipLibCheck as `tsc --init` sets it: the declarations, emitted with
    // stripInternal (tsconfig.types.json), lack @internal members some classes implement.
    writeFileSync(join(app, 'program.ts'), PROGRAM_TS);
    // The .ts program through the CLI, with no TypeScript tooling installed in the project (the program
    // loader's transpiler).
    const tsViaCli = sh(npm, ['exec', '--offline', '--', 'coroscope', 'run', 'program.ts'], app);
    assert.equal(tsViaCli.status, 0, tsViaCli.stderr);
    assert.equal(tsViaCli.stdout, 'ts returned 42\n');
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'node16',
          moduleResolution: 'node16',
          target: 'es2022',
          outDir: 'out',
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(root, 'node_modules', '@types')],
        },
        files: ['program.ts'],
      }),
    );
    const tsc = sh(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], app);
    assert.equal(tsc.status, 0, `${tsc.stdout}${tsc.stderr}`);
    const compiled = sh(process.execPath, [join('out', 'program.js')], app);
    assert.equal(compiled.status, 0, compiled.stderr);
    assert.equal(compiled.stdout, 'ts returned 42\n');

    // A type error in the user's program is found through the same declarations.
    writeFileSync(join(app, 'program.ts'), PROGRAM_TS.replace('q.put(41)', "q.put('41')"));
    const wrong = sh(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', '--noEmit'],
      app,
    );
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stdout, /program\.ts\(4,\d+\): error TS2345/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
