// `coroscope replay`'s arguments: FILE [--dump-tasks-at-tick N] [--log FILE:LINE[:"msg"]] [--json], read
// by the whole CLI (replay-command.ts) and by its entry for a replay with --log alone (replay-log-main.ts).
//
// Invariants: a bad argument is a UsageError naming it; a FILE:LINE that is no place is one too
// (replay-logpoints.ts parseLogOption).

import type { Breakpoint } from '../../protocol/host-protocol';
import { UsageError } from './args';
import { parseLogOption } from './replay-logpoints';

export interface ReplayArgs {
  file: string;
  dumpAtTick: number | null;
  json: boolean;
  /** --log FILE:LINE[:MESSAGE]: logpoints listed over the recorded run instead of a replay (replay-logpoints.ts). */
  logpoints: Breakpoint[];
}

export function parseReplayArgs(args: readonly string[]): ReplayArgs {
  const out: ReplayArgs = { file: '', dumpAtTick: null, json: false, logpoints: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--dump-tasks-at-tick') {
      const v = args[++i];
      if (v === undefined) throw new UsageError('--dump-tasks-at-tick needs a tick number (1 or more) after it');
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < 1)
        throw new UsageError(`--dump-tasks-at-tick needs a tick number (1 or more), got ${JSON.stringify(v)}`);
      out.dumpAtTick = Number(v);
    } else if (a === '--log') {
      const v = args[++i];
      if (v === undefined) throw new UsageError('--log needs FILE:LINE or FILE:LINE:"message {expression}" after it');
      out.logpoints.push(parseLogOption(v));
    } else if (a.startsWith('--log=')) out.logpoints.push(parseLogOption(a.slice('--log='.length)));
    else if (a === '--json') out.json = true;
    else if (a.startsWith('-')) throw new UsageError(`unknown option ${a} for replay (see coroscope --help)`);
    else if (out.file !== '') throw new UsageError('replay takes one recording file');
    else out.file = a;
  }
  if (out.file === '') throw new UsageError('replay needs the .corotrace file to replay');
  if (out.logpoints.length > 0 && out.dumpAtTick !== null)
    throw new UsageError('--log and --dump-tasks-at-tick do not go together');
  return out;
}
