// `coroscope ps PID` and `coroscope pstree PID`: ask a process started with `--inspect` for
// its task table or its task tree (with each task's coroutine stack), as Python 3.14's
// `python -m asyncio ps/pstree PID` do. The process answers on its inspect socket
// (inspect-endpoint.ts), in the per-user directory only its owner can open.
//
// Exit codes: 0 printed; 1 refused, with one line on stderr that says why (no such process,
// another user's, not started with --inspect, not answering); 2 bad arguments.

import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { UsageError } from './args';
import type { InspectCommand } from './inspect-endpoint';
import { inspectSocketDir, inspectSocketPath, unsafeSocketDir } from './inspect-socket-path';

/**
 * How long the process may take to answer (its loop answers between slices of ticks: a step that computes for
 * long delays it).
 */
const ANSWER_TIMEOUT_MS = 10_000;

class Refusal extends Error {}

/** The real uid owning process `pid` (Linux's /proc), or null where that cannot be read. */
function ownerOf(pid: number): number | null {
  try {
    const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/** Whether process `pid` exists and is this user's (another user's even when this user may signal it: root). */
function processStatus(pid: number): 'mine' | 'gone' | 'foreign' {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? 'foreign' : 'gone';
  }
  const owner = ownerOf(pid);
  const me = typeof process.getuid === 'function' ? process.getuid() : null;
  return owner !== null && me !== null && owner !== me ? 'foreign' : 'mine';
}

/** Sends `command` to the socket at `path` and resolves with the process's text. */
function ask(path: string, pid: number, command: InspectCommand): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(path);
    let reply = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(
        new Refusal(
          `process ${pid} did not answer within ${ANSWER_TIMEOUT_MS / 1000} s (its loop may be busy in one long step)`,
        ),
      );
    }, ANSWER_TIMEOUT_MS);
    sock.setEncoding('utf8');
    sock.on('connect', () => sock.write(JSON.stringify({ command }) + '\n'));
    sock.on('data', (chunk: string) => (reply += chunk));
    sock.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new Refusal(
          e.code === 'ECONNREFUSED'
            ? `process ${pid} is not answering on ${path} (a socket left by an earlier process with this PID?)`
            : `cannot reach process ${pid} on ${path}: ${e.message}`,
        ),
      );
    });
    sock.on('end', () => {
      clearTimeout(timer);
      let value: unknown;
      try {
        value = JSON.parse(reply);
      } catch {
        reject(new Refusal(`process ${pid} answered something that is not a Coroscope inspector's answer`));
        return;
      }
      const v = value as { ok?: unknown; text?: unknown; error?: unknown };
      if (v.ok === true && typeof v.text === 'string') resolve(v.text);
      else reject(new Refusal(`process ${pid} refused: ${typeof v.error === 'string' ? v.error : 'no reason given'}`));
    });
  });
}

/** Runs `coroscope ps|pstree PID`; resolves with the exit code. */
export async function runPsCommand(command: InspectCommand, args: readonly string[]): Promise<number> {
  if (args.length !== 1) throw new UsageError(`${command} needs the PID of a process started with --inspect`);
  const arg = args[0]!;
  if (!/^\d+$/.test(arg) || Number(arg) < 1 || !Number.isSafeInteger(Number(arg)))
    throw new UsageError(`${command} needs a process id (a positive whole number), got ${JSON.stringify(arg)}`);
  const pid = Number(arg);
  try {
    const dir = inspectSocketDir();
    const path = inspectSocketPath(pid, dir);
    const status = processStatus(pid);
    if (status === 'foreign')
      throw new Refusal(`process ${pid} belongs to another user: only its owner can inspect it`);
    if (status === 'gone') {
      // A socket its process left when it was killed: nobody will answer on it again.
      if (existsSync(path) && unsafeSocketDir(dir) === null) unlinkSync(path);
      throw new Refusal(`no process with PID ${pid} is running`);
    }
    if (!existsSync(path))
      throw new Refusal(
        `process ${pid} was not started with --inspect (coroscope run --inspect, coroscope crawl --inspect): it has no inspect socket in ${dir}`,
      );
    const unsafe = unsafeSocketDir(dir);
    if (unsafe !== null) throw new Refusal(`refusing to use ${path}: ${unsafe}`);
    process.stdout.write(await ask(path, pid, command));
    return 0;
  } catch (e) {
    if (e instanceof Refusal) {
      process.stderr.write(`coroscope ${command}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
