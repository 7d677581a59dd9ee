import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proposedRecordingName, saveRefusal, withRecordingExtension } from '../../extension/recording-files';
import type { RunStatus } from '../../protocol/webview-protocol';

const status = (over: Partial<RunStatus>): RunStatus => ({
  phase: 'finished',
  runId: 3,
  title: 'Crawl of the demo site (http://127.0.0.1:1/)',
  detail: '',
  tick: 90,
  recorded: true,
  ...over,
});

describe('Save Recording: what can be saved', () => {
  it('a finished, recorded run whose host is up can be saved', () => {
    assert.equal(saveRefusal(status({}), true), null);
  });

  it('refuses, saying why, a run still going, not recorded, or gone', () => {
    for (const phase of ['starting', 'running', 'paused'] as const)
      assert.match(saveRefusal(status({ phase }), true) ?? '', /still going/);
    assert.match(saveRefusal(status({ recorded: undefined }), true) ?? '', /not recorded.*coroscope\.record/);
    // Recorded as asked, but the host could not: its reason, not the setting.
    assert.equal(
      saveRefusal(status({ recorded: undefined, notRecorded: 'sample callbacks runs a loop of its own' }), true),
      'this run was not recorded: sample callbacks runs a loop of its own.',
    );
    assert.match(saveRefusal(status({ phase: 'idle', runId: null }), false) ?? '', /no run/);
    assert.match(saveRefusal(status({ phase: 'hostDied' }), false) ?? '', /host died/);
    assert.match(saveRefusal(status({}), false) ?? '', /has ended/);
    assert.match(
      saveRefusal(status({ recordingFile: '/tmp/a.corotrace' }), true) ?? '',
      /recording \/tmp\/a\.corotrace already/,
    );
  });
});

describe('recording file names', () => {
  it('proposes a name saying what ran and when', () => {
    const at = new Date('2026-11-23T23:40:05Z');
    assert.equal(
      proposedRecordingName('Crawl of the demo site (http://127.0.0.1:1/)', at),
      'demo-crawl-2026-11-23-23-40-05.corotrace',
    );
    assert.equal(proposedRecordingName('Sample queue-pipeline', at), 'queue-pipeline-2026-11-23-23-40-05.corotrace');
    assert.equal(proposedRecordingName('Crawl of http://example.com/', at), 'crawl-2026-11-23-23-40-05.corotrace');
  });

  it('adds the extension when the dialog left it out', () => {
    assert.equal(withRecordingExtension('/tmp/x'), '/tmp/x.corotrace');
    assert.equal(withRecordingExtension('/tmp/x.CoroTrace'), '/tmp/x.CoroTrace');
  });
});
