// The inspect endpoint in this process: its socket in a per-user directory (0700, socket
// 0600), its answers between ticks for the loops it watches, its refusal of bad requests, and
// the directory checks that keep it out of a folder other users can open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLoop } from '../../../runtime/loop';
import { coroutine } from '../../../runtime/coroutine';
import { sleep } from '../../../runtime/sleep';
import { InspectEndpoint, parseInspectRequest } from '../../../runtime/cli/inspect-endpoint';
import { ensureInspectSocketDir, inspectSocketDir, unsafeSocketDir } from '../../../runtime/cli/inspect-socket-path';

function ask(path: string, line: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const sock = connect(path, () => sock.write(line));
    let reply = '';
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => (reply += d));
    sock.on('error', reject);
    sock.on('end', () => resolve(JSON.parse(reply)));
  });
}

test('the endpoint answers ps and pstree for its loops on a socket only its owner can open', async () => {
  const base = mkdtempSync(join(tmpdir(), 'coroscope-xdg-'));
  const saved = process.env.XDG_RUNTIME_DIR;
  process.env.XDG_RUNTIME_DIR = base;
  try {
    assert.equal(inspectSocketDir(), join(base, 'coroscope'));
    const endpoint = await InspectEndpoint.open();
    assert.equal(endpoint.path, join(base, 'coroscope', `${process.pid}.sock`));
    assert.equal(statSync(join(base, 'coroscope')).mode & 0o777, 0o700);
    assert.equal(statSync(endpoint.path).mode & 0o777, 0o600);

    assert.deepEqual(await ask(endpoint.path, '{"command":"ps"}\n'), {
      ok: true,
      text: `process ${process.pid}: no event loop is running (none started yet, or the program's have ended)\n`,
    });

    const loop = new EventLoop();
    endpoint.watch(loop);
    const napper = coroutine(function* napper() {
      yield* sleep(30);
    });
    const task = loop.createTask(napper(), { name: 'napper' });
    const running = loop.runUntilComplete(task);
    await new Promise((r) => setTimeout(r, 50));
    const ps = (await ask(endpoint.path, '{"command":"ps"}\n')) as { ok: boolean; text: string };
    assert.equal(ps.ok, true);
    assert.match(ps.text, /^Tasks at tick \d+, loop time [\d.]+ s\n/);
    // Coroutine tracking is off here: the innermost frame known is the task's own generator.
    assert.match(
      ps.text,
      /^\d+\s+napper\s+suspended\s+sleep .*\s+test\/runtime\/cli\/inspect-endpoint\.test\.ts:\d+ napper\d* \(untracked\)$/m,
    );
    const tree = (await ask(endpoint.path, '{"command":"pstree"}\n')) as { ok: boolean; text: string };
    assert.match(tree.text, /└── \(T\) #\d+ napper \[suspended, 1 step\]/);
    assert.deepEqual(await ask(endpoint.path, '{"command":"rm -rf"}\n'), {
      ok: false,
      error: 'unknown command "rm -rf" (ps or pstree)',
    });
    assert.deepEqual(await ask(endpoint.path, 'ps\n'), { ok: false, error: 'the request is not JSON' });
    task.cancel();
    await assert.rejects(running, { name: 'CancelledError' });
    loop.close();

    endpoint.close();
    assert.equal(existsSync(endpoint.path), false, 'the socket file is removed');
  } finally {
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = saved;
    rmSync(base, { recursive: true, force: true });
  }
});

test('a directory others can open is refused, and requests are narrowed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-open-'));
  try {
    assert.equal(unsafeSocketDir(dir), null);
    chmodSync(dir, 0o755);
    assert.match(unsafeSocketDir(dir) ?? '', /is open to other users \(mode 755; it must be 700\)/);
    assert.throws(() => ensureInspectSocketDir(dir), /refusing to open an inspect socket/);
    assert.match(unsafeSocketDir(join(dir, 'absent')) ?? '', /cannot be read \(ENOENT\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(parseInspectRequest('{"command":"pstree"}'), 'pstree');
  assert.deepEqual(parseInspectRequest('[1]'), { error: 'unknown command undefined (ps or pstree)' });
  assert.deepEqual(parseInspectRequest('null'), { error: 'the request is not a JSON object' });
});
