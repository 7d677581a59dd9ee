// runtime/cli/inspect-socket-path.ts: where inspect sockets live, and the refusal of a directory
// another user could reach (open mode, a symlink, not a directory); in a temp folder of its own.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  ensureInspectSocketDir,
  inspectSocketDir,
  inspectSocketPath,
  unsafeSocketDir,
} from '../../../runtime/cli/inspect-socket-path';

const root = mkdtempSync(join(tmpdir(), 'coroscope-socket-dir-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('inspectSocketDir and inspectSocketPath', () => {
  it("is $XDG_RUNTIME_DIR/coroscope when set, else the temp folder's coroscope-<uid>", () => {
    const saved = process.env.XDG_RUNTIME_DIR;
    try {
      process.env.XDG_RUNTIME_DIR = '/run/user/1000';
      assert.equal(inspectSocketDir(), '/run/user/1000/coroscope');
      process.env.XDG_RUNTIME_DIR = '';
      assert.equal(inspectSocketDir(), join(tmpdir(), `coroscope-${process.getuid?.() ?? 0}`));
    } finally {
      if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = saved;
    }
    assert.equal(inspectSocketPath(4242, '/some/dir'), '/some/dir/4242.sock');
  });
});

describe('unsafeSocketDir', () => {
  it('accepts a directory of this user with mode 700', () => {
    const dir = join(root, 'private');
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
    assert.equal(unsafeSocketDir(dir), null);
  });

  it('refuses one open to others, a file, a symlink to a good directory, and a missing one, saying why', () => {
    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o755);
    assert.equal(unsafeSocketDir(open), `${open} is open to other users (mode 755; it must be 700)`);
    chmodSync(open, 0o750);
    assert.equal(unsafeSocketDir(open), `${open} is open to other users (mode 750; it must be 700)`, 'its group too');
    const file = join(root, 'file');
    writeFileSync(file, '');
    assert.equal(unsafeSocketDir(file), `${file} is not a directory`);
    const good = join(root, 'good');
    mkdirSync(good, { mode: 0o700 });
    chmodSync(good, 0o700);
    const link = join(root, 'link');
    symlinkSync(good, link);
    assert.equal(unsafeSocketDir(link), `${link} is not a directory`, 'a symlink is never followed');
    const missing = join(root, 'missing');
    assert.equal(unsafeSocketDir(missing), `${missing} cannot be read (ENOENT)`);
  });
});

describe('ensureInspectSocketDir', () => {
  it('creates the directory with mode 700, and takes it again as it is', () => {
    const dir = join(root, 'made', 'coroscope');
    assert.equal(ensureInspectSocketDir(dir), dir);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(ensureInspectSocketDir(dir), dir);
  });

  it('refuses a directory open to others rather than use it', () => {
    const dir = join(root, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    assert.throws(() => ensureInspectSocketDir(dir), {
      message: `refusing to open an inspect socket: ${dir} is open to other users (mode 777; it must be 700)`,
    });
  });
});
