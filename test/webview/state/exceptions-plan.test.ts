// Tests of webview/state/exceptions-plan.ts: the Exceptions tab shows the run's own failures
// first and the demonstration only behind its button, offered only while the run has none.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exceptionGroups, planExceptions, type ExceptionsFacts } from '../../../webview/state/exceptions-plan';

const base: ExceptionsFacts = {
  taskFailures: 0,
  urlFailures: 0,
  pair: null,
  urlFailuresAtFetch: 0,
  demoAsked: false,
  fetching: false,
};

describe('planExceptions', () => {
  it('a run with no failure: no demonstration fetched by itself, its button offered', () => {
    assert.deepEqual(planExceptions(base), { fetchPair: false, showPair: false, demoButton: true });
  });

  it('the button pressed: the demonstration is fetched, then shown, and the button goes', () => {
    assert.deepEqual(planExceptions({ ...base, demoAsked: true }), {
      fetchPair: true,
      showPair: false,
      demoButton: false,
    });
    assert.deepEqual(planExceptions({ ...base, demoAsked: true, pair: { own: false } }), {
      fetchPair: false,
      showPair: true,
      demoButton: false,
    });
  });

  it("a user program's failed task: no demonstration, no button", () => {
    assert.deepEqual(planExceptions({ ...base, taskFailures: 1 }), {
      fetchPair: false,
      showPair: false,
      demoButton: false,
    });
    // A demonstration asked for before the run failed is not shown over its failure.
    assert.deepEqual(planExceptions({ ...base, taskFailures: 1, demoAsked: true, pair: { own: false } }), {
      fetchPair: false,
      showPair: false,
      demoButton: false,
    });
  });

  it("a crawl's failed URL: the run's own pair is fetched and shown", () => {
    assert.deepEqual(planExceptions({ ...base, urlFailures: 2 }), {
      fetchPair: true,
      showPair: false,
      demoButton: false,
    });
    assert.deepEqual(planExceptions({ ...base, urlFailures: 2, pair: { own: true }, urlFailuresAtFetch: 2 }), {
      fetchPair: false,
      showPair: true,
      demoButton: false,
    });
    // A demonstration held from before the failure is asked for again (the host now answers with the run's own).
    assert.deepEqual(planExceptions({ ...base, urlFailures: 1, pair: { own: false }, demoAsked: true }), {
      fetchPair: true,
      showPair: false,
      demoButton: false,
    });
    assert.equal(planExceptions({ ...base, urlFailures: 1, fetching: true }).fetchPair, false);
  });
});

describe('exceptionGroups', () => {
  it('puts deadlocks in a list of their own, apart from the tasks that failed, each by its index', () => {
    const deadlock = { summary: 'lock-order cycle: a → b → a', stopped: false };
    assert.deepEqual(exceptionGroups([{}, { deadlock }, {}, { deadlock }]), { deadlocks: [1, 3], failures: [0, 2] });
    assert.deepEqual(exceptionGroups([]), { deadlocks: [], failures: [] });
  });
});
