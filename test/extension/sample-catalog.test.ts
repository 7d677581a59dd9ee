// The Open Tutorial Sample… list falls back to a static catalog when the host cannot list
// its samples: it must stay equal to the runtime's registry.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { narrowSampleList, STATIC_SAMPLES } from '../../extension/sample-catalog';
import { listSamples } from '../../runtime/samples/index';

describe('sample catalog', () => {
  it("lists the runtime's samples, in order, with their titles", () => {
    assert.deepEqual(
      STATIC_SAMPLES.map((s) => [s.id, s.title]),
      listSamples().map((s) => [s.id, s.title]),
    );
  });

  it("names each sample's source file", () => {
    for (const s of STATIC_SAMPLES) {
      assert.ok(
        s.file !== undefined && existsSync(join(__dirname, '..', '..', 'runtime', 'samples', s.file)),
        `${s.id}: ${s.file}`,
      );
    }
  });

  it("narrows a host's answer, dropping malformed entries", () => {
    assert.deepEqual(
      narrowSampleList({ samples: [{ id: 'crawler', title: 'T' }, { id: 3 }, null, { title: 'no id' }] }),
      [{ id: 'crawler', title: 'T', chapter: '', file: 'full-crawler.ts' }],
    );
    assert.equal(narrowSampleList({ samples: [] }), null);
    assert.equal(narrowSampleList('nope'), null);
  });
});
