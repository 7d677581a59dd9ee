// `coroscope replay FILE --log ...` on its own (bundled to dist/cli-replay-log.js): bin/coroscope.js runs
// this entry for a replay with --log, which needs none of the CLI's runtime, crawler and samples, so the
// line replay host (replay-logpoints.ts) is forked as soon as node has read a small bundle instead of
// the whole CLI's (about 0.1 s sooner). Run by itself, it answers as dist/cli.js does.
//
// Invariants: what it prints and its exit codes are the whole CLI's for the same arguments (a bad one,
// --log without a place, --log beside --dump-tasks-at-tick); arguments without --log are refused (the
// launcher sends those to dist/cli.js).

import { UsageError } from './args';
import { runCommand, runEntry } from './command-exit';
import { parseReplayArgs } from './replay-args';
import { replayLogpoints } from './replay-logpoints';

runEntry(async () => {
  const [command, ...args] = process.argv.slice(2);
  if (command !== 'replay') {
    process.stderr.write(
      'coroscope: this entry lists logpoints only (coroscope replay FILE --log ...): run bin/coroscope.js\n',
    );
    return 2;
  }
  return runCommand('replay', async () => {
    const parsed = parseReplayArgs(args);
    if (parsed.logpoints.length === 0)
      throw new UsageError('this entry lists logpoints only: give --log, or run bin/coroscope.js');
    return replayLogpoints(parsed.file, parsed.logpoints, parsed.json);
  });
});
