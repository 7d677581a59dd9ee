// `coroscope replay FILE --log FILE:LINE[:"message {expr}"]` (repeatable): logpoints in the
// past from the command line. Every execution of each logpoint's line over the whole recorded
// run, in the order the run ran them: tick, time since the first tick, task, place and message
// (`{expr}` evaluated in the frame, as a VS Code logpoint's; no message: the place alone).
// Found as VS Code finds them: a line replay host (dist/runtime-host.js beside this bundle, forked
// as a live host's worker forks one) opens the recording and scans it (pastLog), and the list is
// made as the host makes VS Code's (logpoint-hits.ts); no host between the two. See
// docs/design/past-logpoints.md.
//
// Invariants: the network is never used and the recording not changed; the replay host forked is
// ended before the command returns; a FILE:LINE that is not one (no such file, a line past its
// end) is a usage error (exit 2); a recording the replay host refuses is exit 1 with its reason.

import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { PROTOCOL_VERSION, type Breakpoint, type LogpointHit } from '../../protocol/host-protocol';
import { armedLogpoint, hitsNeedTickTimes, logpointHitsOf } from '../host/shared/logpoint-hits';
import { forkLineReplayHost } from '../host/shared/line-replay-start';
import { UsageError } from './args';

/** A `--log` value: FILE:LINE, optionally followed by :MESSAGE (the message may hold colons). */
export function parseLogOption(value: string, cwd = process.cwd()): Breakpoint {
  const m = /^(.+?):(\d+)(?::(.*))?$/s.exec(value);
  if (m === null)
    throw new UsageError(
      `--log needs FILE:LINE or FILE:LINE:MESSAGE (a line number after the file), got ${JSON.stringify(value)}`,
    );
  const line = Number(m[2]);
  if (!Number.isSafeInteger(line) || line < 1) throw new UsageError(`--log: line ${m[2]} is not a line number`);
  const file = resolve(cwd, m[1]!);
  // A place no recorded run can pass (no such file, a line past its end) is said at once, not listed as no hits.
  let lines: number;
  try {
    lines = readFileSync(file, 'utf8').split('\n').length;
  } catch (e) {
    throw new UsageError(`--log: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (line > lines) throw new UsageError(`--log: ${file} has ${lines} lines, not ${line}`);
  let message = m[3] ?? '';
  // A message quoted as a whole (the shell left the quotes): the text inside.
  if (/^".*"$/s.test(message) || /^'.*'$/s.test(message)) message = message.slice(1, -1);
  return { file, line, logMessage: message === '' ? `${basename(file)}:${line}` : message };
}

/** The runtime host's bundle: beside the CLI's (dist/), or dist/ from the sources. */
function hostScript(): string {
  const beside = join(__dirname, 'runtime-host.js');
  if (existsSync(beside)) return beside;
  const built = join(__dirname, '..', '..', 'dist', 'runtime-host.js');
  if (existsSync(built)) return built;
  throw new Error(`the runtime host bundle is missing (${beside}): run npm run build`);
}

/** One hit as a line: tick, time, task, place, message. */
export function formatLogpointHit(h: LogpointHit): string {
  const who = h.taskId === null ? 'no task' : `${h.task ?? 'task'} (#${h.taskId})`;
  return `tick ${h.tick}  +${h.time.toFixed(1)} ms  ${who}  ${basename(h.file)}:${h.line}  ${h.message}`;
}

/** Lists the logpoints' hits in `file`'s recorded run on stdout (`json`: one JSON object); the exit code. */
export async function replayLogpoints(file: string, logpoints: Breakpoint[], json: boolean): Promise<number> {
  const { child, endpoint } = forkLineReplayHost(hostScript(), []);
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  try {
    await endpoint.request('hello', { client: 'line replay', protocolVersion: PROTOCOL_VERSION });
    // Opened as a live host's worker opens a recording file in its hit replay host: read and checked there.
    const { ticks } = await endpoint.request('openRecording', { path: resolve(file), unshown: true });
    const found = (await endpoint.request('pastLog', { logpoints: logpoints.map(armedLogpoint), ceiling: ticks })).hits;
    const times = ticks > 0 && hitsNeedTickTimes(found) ? (await endpoint.request('timeline', {})).tickTimes : [];
    const hits = logpointHitsOf(found, logpoints, times);
    if (json) process.stdout.write(`${JSON.stringify({ ticks, hits })}\n`);
    else {
      // One write: a line each would be a system call each, for a list of thousands.
      process.stdout.write(hits.map((h) => `${formatLogpointHit(h)}\n`).join(''));
      const places = logpoints.map((l) => `${basename(l.file)}:${l.line}`).join(', ');
      process.stderr.write(
        `${hits.length} hit${hits.length === 1 ? '' : 's'} of ${places} in ${ticks} ticks (replayed)\n`,
      );
    }
    return 0;
  } catch (e) {
    process.stderr.write(`coroscope replay: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    endpoint.close('done');
    // Ended at once, not wound down (its teardown took about 50 ms): it keeps nothing, writes no file (a line
    // replay host forks none and copies nothing), and the list is out.
    child.kill('SIGKILL');
    await exited;
  }
}
