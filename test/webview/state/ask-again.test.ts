// askAgain (webview/state/ask-again.ts): the panel's `ready` asked again while its answer is lost.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { askAgain } from '../../../webview/state/ask-again';

/** A clock run by hand: the functions scheduled, run on `tick()`. */
class Timers {
  private due: Array<() => void> = [];
  readonly schedule = (f: () => void): void => {
    this.due.push(f);
  };
  tick(): void {
    const now = this.due;
    this.due = [];
    for (const f of now) f();
  }
}

describe('askAgain', () => {
  it('asks again while no answer came, and takes the first answer', async () => {
    const timers = new Timers();
    const answers: Array<(v: string) => void> = [];
    const result = askAgain(
      () =>
        new Promise<string>((resolve) => {
          answers.push(resolve);
        }),
      100,
      5,
      timers.schedule,
    );
    assert.equal(answers.length, 1);
    timers.tick();
    timers.tick();
    assert.equal(answers.length, 3, 'asked again twice: the first answer was lost');
    answers[2]!('third');
    answers[0]!('first, late');
    assert.equal(await result, 'third');
    timers.tick();
    assert.equal(answers.length, 3, 'answered: not asked again');
  });

  it('asks at most `tries` times; a refusal is the answer', async () => {
    const timers = new Timers();
    let asked = 0;
    const never = askAgain(() => new Promise<number>(() => asked++), 100, 3, timers.schedule);
    for (let i = 0; i < 10; i++) timers.tick();
    assert.equal(asked, 3);
    void never;
    const refused = askAgain(() => Promise.reject(new Error('no')), 100, 3, timers.schedule);
    await assert.rejects(refused, /no/);
  });
});
