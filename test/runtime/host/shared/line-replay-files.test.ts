// The line replay copies a live host writes to the temp folder (runtime/host/shared/line-replay-files.ts):
// named by the host's process, and those still there when the host exits are removed, not left behind.
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { lineReplayFile } from '../../../../runtime/host/shared/line-replay-files';
import { forkHost } from '../host-client';

test('a line replay copy named by this process, in the temp folder, a new name each time', () => {
  const a = lineReplayFile();
  const b = lineReplayFile();
  assert.notEqual(a, b);
  for (const f of [a, b])
    assert.match(f, new RegExp(`^${tmpdir()}/coroscope-line-replay-${process.pid}-\\d+\\.corotrace$`));
});

test('a host that exits removes the line replay copies it left (written as it ended), not those of others', async () => {
  const host = forkHost();
  // Up (its exit handler set): any answer tells, an error too.
  await host.rpc.request('timeline', {}).catch(() => undefined);
  const pid = host.child.pid!;
  // As a follow feed or a stop's copy written while the host was being shut down: no replay host to read it.
  const orphans = [1, 2].map((n) => join(tmpdir(), `coroscope-line-replay-${pid}-${n}.corotrace`));
  const others = join(tmpdir(), `coroscope-line-replay-${pid}0-1.corotrace`);
  for (const f of [...orphans, others]) writeFileSync(f, 'a copy');
  try {
    await host.close();
    assert.deepEqual(
      orphans.filter((f) => existsSync(f)),
      [],
    );
    assert.ok(existsSync(others), "another process's copy stays");
  } finally {
    for (const f of [...orphans, others]) rmSync(f, { force: true });
  }
});
