// The host's saveRecording / openRecording: a demo crawl launched with options.record is
// saved once finished, the file opens (checked whole), and every refusal says why.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteError } from '../../../protocol/rpc';
import { forkHost, type HostClient } from './host-client';
import { readRecordingFile } from '../../../runtime/record/recording-file';
import { readRunLog } from '../../../runtime/record/run-log';

async function rejectsWith(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RemoteError && e.code === code && message.test(e.message));
}

describe('host recordings', () => {
  let host: HostClient;
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-host-rec-'));

  before(() => {
    host = forkHost();
  });
  after(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a recorded demo crawl is saved once finished and opens; a run not recorded is refused', async () => {
    const file = join(dir, 'run.corotrace');
    await rejectsWith(host.rpc.request('saveRecording', { path: file }), 'noRun', /launch first/);
    let from = host.events.length;
    const launched = await host.rpc.request('launch', { target: { kind: 'demo', pages: 20 }, options: { record: true, maxTasks: 5 } });
    await host.waitFor('finished', (f) => f.runId === launched.runId, 30000, from);
    const saved = await host.rpc.request('saveRecording', { path: file });
    assert.equal(saved.program, 'demo');
    assert.ok(saved.ticks > 5 && saved.steps > saved.ticks / 2 && saved.sockets > 0 && saved.bytes > 100, JSON.stringify(saved));
    const rec = readRecordingFile(file);
    assert.equal(readRunLog(rec.events, rec.gaps, rec.payload, file).times.length, saved.ticks);
    const opened = await host.rpc.request('openRecording', { path: file });
    assert.deepEqual({ ...opened, bytes: 0, runId: 0 }, { ...saved, bytes: 0, runId: 0 });
    assert.equal(opened.bytes, readFileSync(file).length);

    from = host.events.length;
    const plain = await host.rpc.request('launch', { target: { kind: 'demo', pages: 10 }, options: { maxTasks: 5 } });
    await host.waitFor('finished', (f) => f.runId === plain.runId, 30000, from);
    await rejectsWith(host.rpc.request('saveRecording', { path: join(dir, 'plain.corotrace') }), 'notRecorded', /was not recorded: launch it with options\.record/);
  });

  test('openRecording refuses a missing, a corrupt and a foreign file with the reason', async () => {
    await rejectsWith(host.rpc.request('openRecording', { path: join(dir, 'none.corotrace') }), 'badRecording', /none\.corotrace: no such recording file/);
    const bad = join(dir, 'bad.corotrace');
    writeFileSync(bad, 'not a recording');
    await rejectsWith(host.rpc.request('openRecording', { path: bad }), 'badRecording', /bad\.corotrace is not a Coroscope recording/);
    await rejectsWith(host.rpc.request('openRecording', {} as never), 'badRequest', /path/);
  });
});
