// The temporary .corotrace files a live host writes for its line replay hosts: named by the host's
// process id, so the host can remove the ones it leaves when it exits.
//
// Invariants: the worker removes each file once its replay host has read it; a file written while
// the host was ending (a follow feed, a stop's copy) has no reader left, and removeLineReplayFiles
// (main.ts, at the process's exit) removes every file of this process still there.

import { readdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = `coroscope-line-replay-${process.pid}-`;
let files = 0;

/** A temporary file for a recording a replay host opens (LineReplayHost.open). */
export function lineReplayFile(): string {
  return join(tmpdir(), `${PREFIX}${++files}.corotrace`);
}

/** Removes every line replay file of this process left in the temp folder (any thread's). */
export function removeLineReplayFiles(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX) || !name.endsWith('.corotrace')) continue;
    try {
      unlinkSync(join(tmpdir(), name));
    } catch {
      // Removed meanwhile.
    }
  }
}
