// runtime/creation-sites.ts: where a primitive was made, captured only while coroutine tracking
// is on, the first capture kept, the frames of the capturing function and above it left out.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setCoroutineTracking } from '../../runtime/coroutine';
import { captureSite, creationStackOf, noteCreationSite } from '../../runtime/creation-sites';

afterEach(() => setCoroutineTracking(false));

/** Stack lines naming a function (`at name (` or `at new name (`). */
function names(stack: string | undefined): string[] {
  return (stack ?? '')
    .split('\n')
    .map((l) => /^\s+at (?:new )?([\w.<>]+) /.exec(l)?.[1] ?? '')
    .filter((n) => n !== '');
}

describe('creation sites', () => {
  it('captures nothing while tracking is off', () => {
    setCoroutineTracking(false);
    const resource = {};
    noteCreationSite(resource);
    assert.equal(creationStackOf(resource), null);
    assert.equal(
      captureSite(() => undefined),
      null,
    );
  });

  it('keeps the stack of the first note, from the program line that made the resource', () => {
    setCoroutineTracking(true);
    const resource = {};
    function makeTheResource(): void {
      noteCreationSite(resource);
    }
    function makeItAgain(): void {
      noteCreationSite(resource);
    }
    makeTheResource();
    const first = creationStackOf(resource);
    makeItAgain();
    assert.equal(creationStackOf(resource), first, 'a second note keeps the first site');
    const frames = names(first?.stack);
    assert.equal(frames[0], 'makeTheResource', frames.join(' | '));
    assert.ok(!frames.includes('noteCreationSite'), 'its own frame is left out');
  });

  it('captureSite leaves out `below` and its callers above, at most `frames` deep', () => {
    setCoroutineTracking(true);
    function inner(): ReturnType<typeof captureSite> {
      return captureSite(inner, 2);
    }
    function outer(): ReturnType<typeof captureSite> {
      return inner();
    }
    const limit = Error.stackTraceLimit;
    const site = outer();
    const frames = names(site?.stack);
    assert.equal(frames[0], 'outer', frames.join(' | '));
    assert.equal(frames.length, 2);
    assert.equal(Error.stackTraceLimit, limit, 'the limit is put back');
  });
});
