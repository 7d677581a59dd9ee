// runtime/record/asked-cancels.ts: who asked each cancel no task asked, as a log's reader says
// it: the recording's outside cancels between ticks (a CLI recording's signal), else the asked
// cancel kept at that cancel's place in the list, else unknown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NoTaskCancels, type AskedCancel } from '../../../runtime/record/asked-cancels';

const UNKNOWN = { origin: { kind: 'unknown' }, label: null };

describe('NoTaskCancels', () => {
  it('reads the asked cancels in order, one per CANCEL record by no task', () => {
    const asked: AskedCancel[] = [
      { by: 'inspector', message: 'Stop' },
      { by: 'debugger', message: 'Terminate Thread' },
      { by: 'deadline', message: 'the crawl deadline passed' },
    ];
    const reader = new NoTaskCancels(null);
    assert.deepEqual(
      [reader.next(false, asked), reader.next(true, asked), reader.next(false, asked)],
      [
        { origin: { kind: 'inspector' }, label: 'the inspector' },
        { origin: { kind: 'debugger' }, label: 'the debugger' },
        { origin: { kind: 'deadline' }, label: 'the crawl deadline' },
      ],
    );
    assert.deepEqual(reader.next(false, asked), UNKNOWN, 'past the end of the list: unknown');
  });

  it('reads a cancel with no asked cancel kept (null), or a recording without the list, as unknown', () => {
    const reader = new NoTaskCancels(null);
    assert.deepEqual(reader.next(false, [null, { by: 'cli', message: 'SIGINT' }]), UNKNOWN);
    assert.deepEqual(reader.next(false, [null, { by: 'cli', message: 'SIGINT' }]), {
      origin: { kind: 'cli' },
      label: 'the CLI',
    });
    assert.deepEqual(new NoTaskCancels(null).next(false, null), UNKNOWN);
  });

  it("names a cancel between ticks by the recording's outside cancels, one inside a tick by its list", () => {
    const outside = { origin: { kind: 'cli' } as const, label: 'the CLI (SIGINT)' };
    const asked: AskedCancel[] = [
      { by: 'inspector', message: 'Stop' },
      { by: 'debugger', message: 'x' },
    ];
    const reader = new NoTaskCancels(outside);
    assert.equal(reader.next(false, asked), outside);
    // The outside cancel still took its place in the list: the next is the second.
    assert.deepEqual(reader.next(true, asked), { origin: { kind: 'debugger' }, label: 'the debugger' });
  });
});
