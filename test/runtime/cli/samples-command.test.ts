// Tests of the CLI's sample commands' own logic (runtime/cli/samples-command.ts): the list's two aligned
// columns, one line per sample in the catalogue's order; `sample`'s refusals (no id, more than one, an
// unknown one) and `compare`'s option parsing, each refused as a UsageError with its words before anything
// runs. Running a sample and a comparison is cli.test.ts's (the built CLI).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../../runtime/cli/args';
import { listSamplesText, runCompareCommand, runSampleCommand } from '../../../runtime/cli/samples-command';
import { SAMPLES } from '../../../runtime/samples/index';

async function refusal(run: () => Promise<number>): Promise<string> {
  try {
    await run();
  } catch (e) {
    assert.ok(e instanceof UsageError, `not a usage error: ${String(e)}`);
    return e.message;
  }
  assert.fail('not refused');
}

test('the list: each sample once, in order, its title in a column after the longest id', () => {
  const width = Math.max(...SAMPLES.map((s) => s.id.length));
  const lines = listSamplesText().split('\n');
  assert.equal(lines.pop(), '', 'ends with a newline');
  assert.deepEqual(
    lines.map((l) => [l.slice(0, width).trimEnd(), l.slice(width, width + 2), l.slice(width + 2)]),
    SAMPLES.map((s) => [s.id, '  ', s.title]),
  );
});

test('sample: no id, two ids, or an unknown one are refused, naming the samples', async () => {
  const ids = SAMPLES.map((s) => s.id).join(', ');
  assert.deepEqual(
    [
      await refusal(() => runSampleCommand([])),
      await refusal(() => runSampleCommand(['generators', 'blocking'])),
      await refusal(() => runSampleCommand(['nope'])),
    ],
    [`sample needs an id; one of: ${ids}`, 'sample takes one id, got 2', `unknown sample "nope"; one of: ${ids}`],
  );
});

test('compare: --pages from 1, --latency from 0, whole numbers, nothing else', async () => {
  const refusals = [];
  for (const args of [
    ['--pages'],
    ['--pages', '0'],
    ['--pages', '2.5'],
    ['--latency', '-1'],
    ['--latency', 'x'],
    ['--pages', '3', '--fast'],
  ])
    refusals.push(await refusal(() => runCompareCommand(args)));
  assert.deepEqual(refusals, [
    '--pages needs a whole number',
    '--pages needs a whole number',
    '--pages needs a whole number',
    '--latency needs a whole number',
    '--latency needs a whole number',
    'unknown option --fast for compare (use --pages N, --latency MS)',
  ]);
});
