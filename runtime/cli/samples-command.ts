// `coroscope samples`, `coroscope sample <id>` and `coroscope compare [--pages N]`: the
// tutorial samples of the chapter and its companion articles, and the measured comparison
// of the approaches (blocking, processes, threads, busy non-blocking, callbacks, generator
// coroutines, the full runtime).

import { UsageError } from './args';
import { SAMPLES, compareApproaches, findSample, formatComparison, runSample } from '../samples/index';

export function listSamplesText(): string {
  const width = Math.max(...SAMPLES.map((s) => s.id.length));
  return SAMPLES.map((s) => `${s.id.padEnd(width)}  ${s.title}`).join('\n') + '\n';
}

export async function runSampleCommand(args: readonly string[]): Promise<number> {
  const id = args[0];
  if (id === undefined) throw new UsageError(`sample needs an id; one of: ${SAMPLES.map((s) => s.id).join(', ')}`);
  if (args.length > 1) throw new UsageError(`sample takes one id, got ${args.length}`);
  const sample = findSample(id);
  if (sample === undefined)
    throw new UsageError(`unknown sample ${JSON.stringify(id)}; one of: ${SAMPLES.map((s) => s.id).join(', ')}`);
  process.stdout.write(`# ${sample.title}\n# ${sample.chapter}\n\n`);
  const outcome = await runSample(id, { log: (line) => process.stdout.write(line + '\n') });
  if (!outcome.ok) {
    process.stderr.write(`coroscope sample ${id}: the sample did not produce its expected output\n`);
    return 1;
  }
  return 0;
}

export async function runCompareCommand(args: readonly string[]): Promise<number> {
  let pages = 10;
  let latencyMs = 100;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = args[i + 1];
    if (a === '--pages' || a === '--latency') {
      if (v === undefined || !/^\d+$/.test(v) || Number(v) < (a === '--pages' ? 1 : 0))
        throw new UsageError(`${a} needs a whole number`);
      if (a === '--pages') pages = Number(v);
      else latencyMs = Number(v);
      i++;
    } else throw new UsageError(`unknown option ${a} for compare (use --pages N, --latency MS)`);
  }
  process.stderr.write(`Fetching ${pages} pages of the demo site (${latencyMs} ms latency) with each approach...\n`);
  const rows = await compareApproaches({ pages, latencyMs, log: (line) => process.stderr.write(line + '\n') });
  process.stdout.write(formatComparison(rows) + '\n');
  return rows.every((r) => r.failures === 0) ? 0 : 1;
}
