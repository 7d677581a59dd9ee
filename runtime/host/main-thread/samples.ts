// Runs on a runtime host's main thread (a live host's, and a line replay host's).
//
// The tutorial samples as the host launches them: `launch {kind: 'sample', id}` finds the
// sample in the samples registry (runtime/samples/index.ts) and runs it against a demo site
// of the registry's size (SAMPLE_SITE), with the run's loop in its context, so every
// coroutine it starts runs there and can be paused, stepped and inspected.
//
// An unknown id is a ProtocolError listing the ids that exist.

import { ProtocolError } from '../../../protocol/rpc';
import { findSample, SAMPLES, SAMPLE_SITE, type Sample } from '../../samples/index';

export { SAMPLE_SITE };

/** The ids of the samples available. */
export function sampleIds(): string[] {
  return SAMPLES.map((s) => s.id);
}

/** The sample `id`, or a ProtocolError saying which ones exist. */
export function findHostSample(id: string): Sample {
  const s = findSample(id);
  if (s === undefined)
    throw new ProtocolError(
      `launch: no sample ${JSON.stringify(id)} (samples: ${sampleIds().join(', ')})`,
      'unknownSample',
    );
  return s;
}
