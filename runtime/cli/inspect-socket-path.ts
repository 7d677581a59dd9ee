// Where a process started with `--inspect` answers `coroscope ps` and `pstree`: a Unix domain
// socket named by its PID in a per-user directory only that user can open (mode 0700):
// $XDG_RUNTIME_DIR/coroscope/ when that is set (a per-user directory already), else
// os.tmpdir()/coroscope-<uid>/. Both the inspected process and the `ps` client find it here.
//
// Invariants: a directory is used only if it is a real directory (not a symlink) owned by
// this user with no access for group or others; otherwise the caller is told why and no
// socket is opened or looked for there. Nothing else is ever created in it.

import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The per-user directory of inspect sockets (not created). */
export function inspectSocketDir(): string {
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  if (runtimeDir !== undefined && runtimeDir !== '') return join(runtimeDir, 'coroscope');
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return join(tmpdir(), `coroscope-${uid}`);
}

/** The socket of process `pid`. */
export function inspectSocketPath(pid: number, dir: string = inspectSocketDir()): string {
  return join(dir, `${pid}.sock`);
}

/**
 * Why `dir` may not hold inspect sockets (owned by someone else, open to others, not a directory), or null
 * when it may.
 */
export function unsafeSocketDir(dir: string): string | null {
  let st;
  try {
    st = lstatSync(dir);
  } catch (e) {
    return `${dir} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
  }
  if (!st.isDirectory()) return `${dir} is not a directory`;
  const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
  if (st.uid !== uid) return `${dir} belongs to another user (uid ${st.uid})`;
  if ((st.mode & 0o077) !== 0)
    return `${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)}; it must be 700)`;
  return null;
}

/** Creates the per-user directory (mode 0700) if missing; returns it, or throws with why it cannot be used. */
export function ensureInspectSocketDir(dir: string = inspectSocketDir()): string {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new Error(`cannot create ${dir}: ${(e as Error).message}`);
  }
  const unsafe = unsafeSocketDir(dir);
  if (unsafe !== null) throw new Error(`refusing to open an inspect socket: ${unsafe}`);
  return dir;
}
