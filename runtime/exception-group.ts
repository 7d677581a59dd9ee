// BaseExceptionGroup / ExceptionGroup: Python 3.11's exception groups, several errors
// raised together (what a TaskGroup raises when its tasks fail). JavaScript's
// AggregateError is the base, so `errors` holds them too; `exceptions` is Python's name.
//
// Invariants: a group holds at least one exception and never changes; subgroup() and
// split() build new groups that keep the nesting of the original (Python's rules for
// `except*`), and give null where nothing matches.

/** Which exceptions a subgroup() or split() keeps: a class, several classes, or a test. */
export type ExceptionMatcher =
  | (abstract new (
      ...args: never[]
    ) => unknown)
  | ReadonlyArray<abstract new (...args: never[]) => unknown>
  | ((exc: unknown) => boolean);

function matcherTest(matcher: ExceptionMatcher): (exc: unknown) => boolean {
  if (Array.isArray(matcher)) return (exc) => matcher.some((cls) => exc instanceof cls);
  const fn = matcher as ((exc: unknown) => boolean) | (abstract new (...args: never[]) => unknown);
  // A class (has a prototype that is an Error's or any object's) versus an arrow test.
  if (typeof fn === 'function' && fn.prototype !== undefined)
    return (exc) => exc instanceof (fn as abstract new (...args: never[]) => unknown);
  return fn as (exc: unknown) => boolean;
}

export class BaseExceptionGroup extends AggregateError {
  readonly exceptions: readonly unknown[];

  constructor(message: string, exceptions: readonly unknown[]) {
    if (typeof message !== 'string') throw new TypeError('an exception group needs a message string');
    if (!Array.isArray(exceptions) || exceptions.length === 0)
      throw new TypeError('an exception group needs a non-empty array of exceptions');
    super(exceptions, message);
    this.name = new.target.name;
    this.exceptions = Object.freeze([...exceptions]);
  }

  /** A group of the same kind and message holding `exceptions` (Python's derive()). */
  derive(exceptions: readonly unknown[]): BaseExceptionGroup {
    return new (this.constructor as new (m: string, e: readonly unknown[]) => BaseExceptionGroup)(
      this.message,
      exceptions,
    );
  }

  /** The exceptions that match, with this group's nesting; null if none does. */
  subgroup(matcher: ExceptionMatcher): BaseExceptionGroup | null {
    return this.split(matcher)[0];
  }

  /** [the matching part, the rest], each a group with this group's nesting or null. */
  split(matcher: ExceptionMatcher): [BaseExceptionGroup | null, BaseExceptionGroup | null] {
    const test = matcherTest(matcher);
    if (test(this)) return [this, null];
    const matched: unknown[] = [];
    const rest: unknown[] = [];
    for (const exc of this.exceptions) {
      if (exc instanceof BaseExceptionGroup) {
        const [m, r] = exc.split(test);
        if (m !== null) matched.push(m);
        if (r !== null) rest.push(r);
      } else if (test(exc)) {
        matched.push(exc);
      } else {
        rest.push(exc);
      }
    }
    const part = (list: unknown[]): BaseExceptionGroup | null =>
      list.length === 0
        ? null
        : list.length === this.exceptions.length && list.every((e, i) => e === this.exceptions[i])
          ? this
          : this.derive(list);
    return [part(matched), part(rest)];
  }

  override toString(): string {
    const n = this.exceptions.length;
    return `${this.name}: ${this.message} (${n} sub-exception${n === 1 ? '' : 's'})`;
  }
}

/** An exception group of ordinary errors, what a TaskGroup raises. */
export class ExceptionGroup extends BaseExceptionGroup {}
