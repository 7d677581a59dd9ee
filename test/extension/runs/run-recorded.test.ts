// Run.recorded is the host's word, not only the option asked, on the real runtime host: a sample with a
// loop of its own launched with record is not recorded (the launch answer says why), so the run offers no
// past (not debuggable once finished, nothing to save), and its views say why; a sample on the runtime's
// loop is recorded as asked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RunRegistry } from '../../../extension/runs/run-registry';
import { until } from '../wait-until';
import { distBundle } from '../../dist-bundles';

const HOST = distBundle('runtime-host.js');

describe('Run.recorded', { timeout: 120_000 }, () => {
  let runs: RunRegistry;

  before(() => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
  });
  after(async () => {
    await runs.dispose();
  });

  it('a run the host could not record is not recorded, and says why; one it could is', async () => {
    const run = await runs.start();
    const detach = run.attach('panel');
    try {
      await run.launch({ kind: 'sample', id: 'callbacks' }, { record: true }, 'panel');
      assert.match(run.notRecorded ?? '', /^sample callbacks runs a loop of its own, which is not recorded/);
      assert.equal(run.recorded, false);
      await until('the sample finished', () => run.phase === 'finished', 60_000);
      assert.equal(run.isDebuggable(), false, 'a finished run with no past offers none to step through');

      await run.launch({ kind: 'sample', id: 'generators' }, { record: true }, 'panel');
      assert.equal(run.notRecorded, null, 'the word goes with the run it was said of');
      assert.equal(run.recorded, true);
      await until('the sample finished', () => run.phase === 'finished', 60_000);
      assert.equal(run.isDebuggable(), true);
    } finally {
      detach();
    }
  });
});
