// How a `coroscope` entry ends (main.ts, replay-log-main.ts): its exit code set, an unexpected error printed
// with its stack (exit 1), a usage error of a command said as `coroscope NAME: ...` (exit 2), and a reader
// that goes away (`coroscope replay x --dump-tasks-at-tick 60 | head`) ending the command quietly, as it ends
// any Unix filter: output nobody reads is not an error.

import { UsageError } from './args';

/** Runs entry `main`: its exit code (null: a program run by `coroscope run` sets its own) becomes the process's. */
export function runEntry(main: () => Promise<number | null>): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
  main().then(
    (code) => {
      if (code !== null) process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`coroscope: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}

/** Runs command `name`: a usage error it throws is said on stderr, exit 2. */
export async function runCommand(name: string, command: () => Promise<number | null>): Promise<number | null> {
  try {
    return await command();
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`coroscope ${name}: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
