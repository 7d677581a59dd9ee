// `coroscope`: the command-line entry (bundled to dist/cli.js, run by bin/coroscope.js; a replay
// with --log alone has an entry of its own, replay-log-main.ts). Parses the arguments, runs the
// command, and exits with its code: 2 for bad arguments, with a message that names the problem
// (command-exit.ts).

import { parseArgs, UsageError, USAGE } from './args';
import { runCommand, runEntry } from './command-exit';
import { runCrawlCommand } from './crawl-command';
import { runDemoSiteCommand } from './demo-site-command';
import { runReplayCommand } from './replay-command';
import { runRunCommand } from './run-command';
import { runPsCommand } from './ps-command';
import { listSamplesText, runCompareCommand, runSampleCommand } from './samples-command';
import { demoTracePair, formatTracePair, tracePair } from '../inspect/traces';

const VERSION = '0.1.0';

/** The exit code, or null when a program run by `coroscope run` sets its own. */
async function main(argv: string[]): Promise<number | null> {
  let cmd;
  try {
    cmd = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`coroscope: ${e.message}\nRun 'coroscope --help' for usage.\n`);
      return 2;
    }
    throw e;
  }
  switch (cmd.kind) {
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'version':
      process.stdout.write(`coroscope ${VERSION}\n`);
      return 0;
    case 'crawl':
      return runCrawlCommand(cmd);
    case 'demo-site':
      return runDemoSiteCommand(cmd);
    case 'other':
      return runOther(cmd.name, cmd.args);
  }
}

function runOther(name: string, args: string[]): Promise<number | null> {
  return runCommand(name, async () => {
    switch (name) {
      case 'samples':
        if (args.length > 0) throw new UsageError('samples takes no arguments');
        process.stdout.write(listSamplesText());
        return 0;
      case 'sample':
        return await runSampleCommand(args);
      case 'compare':
        return await runCompareCommand(args);
      case 'replay':
        return await runReplayCommand(args);
      case 'run':
        return await runRunCommand(args);
      case 'ps':
      case 'pstree':
        return await runPsCommand(name, args);
      case 'trace': {
        // The same failure as a coroutine traceback and as the callback stage's ripped trace.
        if (args.length !== 1) throw new UsageError('trace needs --demo or the URL of a failing page');
        const pair = args[0] === '--demo' ? await demoTracePair() : await tracePair(args[0]!);
        process.stdout.write(formatTracePair(pair));
        return 0;
      }
      default:
        process.stderr.write(`coroscope: unknown command ${JSON.stringify(name)}\nRun 'coroscope --help' for usage.\n`);
        return 2;
    }
  });
}

runEntry(() => main(process.argv.slice(2)));
