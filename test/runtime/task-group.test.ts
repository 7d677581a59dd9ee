// Tests of runtime/task-group.ts (asyncio 3.11's TaskGroup), ported from CPython's
// Lib/test/test_asyncio/test_taskgroups.py (class TestTaskGroup) and rewritten in this
// runtime's API: `async with TaskGroup() as g:` is `yield* new TaskGroup().run(function* (g) {...})`,
// ExceptionGroup is runtime/exception-group.ts's, time is the virtual clock.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  VirtualClock,
  TaskGroup,
  ExceptionGroup,
  CancelledError,
  RuntimeError,
  coroutine,
  getRunningLoop,
  sleep,
  type Coroutine,
  type Task,
  inspect,
} from '../../runtime/index';

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

class ZeroDivisionError extends Error {}
class MyExc extends Error {}
class ValueErr extends Error {}

/** Starts `coro` as a task of the running loop (asyncio.create_task). */
function createTask<T>(coro: Coroutine<T>): Task<T> {
  return getRunningLoop().createTask(coro);
}

function errorTypes(eg: unknown): Set<unknown> {
  assert.ok(eg instanceof ExceptionGroup, `expected an ExceptionGroup, got ${String(eg)}`);
  return new Set(eg.exceptions.map((e) => (e as object).constructor));
}

const valueAfter = coroutine(function* valueAfter<T>(delay: number, value: T): Coroutine<T> {
  yield* sleep(delay);
  return value;
});
const crashAfter = coroutine(function* crashAfter(
  delay: number,
  make: () => Error = () => new ZeroDivisionError('1 / 0'),
): Coroutine<never> {
  yield* sleep(delay);
  throw make();
});
/** Runs `main` to completion on a new virtual loop and gives its outcome: ['ok', value] or ['error', err]. */
async function outcome<T>(main: () => Coroutine<T>): Promise<['ok', T] | ['error', unknown]> {
  const loop = virtualLoop();
  try {
    return ['ok', await loop.runUntilComplete(main())];
  } catch (e) {
    return ['error', e];
  } finally {
    loop.close();
  }
}

describe('TestTaskGroup (CPython test_taskgroups.py)', () => {
  test('test_taskgroup_01: the block ends when both children are done', async () => {
    const r = await outcome(
      coroutine(function* main(): Coroutine<[number, number]> {
        let t1!: Task<number>;
        let t2!: Task<number>;
        yield* new TaskGroup().run(function* body(g) {
          t1 = g.createTask(valueAfter(0.1, 42));
          t2 = g.createTask(valueAfter(0.2, 11));
        });
        return [t1.result(), t2.result()];
      }),
    );
    assert.deepEqual(r, ['ok', [42, 11]]);
  });

  test('test_taskgroup_02: a child created later in the block is awaited too', async () => {
    const r = await outcome(
      coroutine(function* main(): Coroutine<[number, number]> {
        let t1!: Task<number>;
        let t2!: Task<number>;
        yield* new TaskGroup().run(function* body(g) {
          t1 = g.createTask(valueAfter(0.1, 42));
          yield* sleep(0.15);
          t2 = g.createTask(valueAfter(0.2, 11));
        });
        return [t1.result(), t2.result()];
      }),
    );
    assert.deepEqual(r, ['ok', [42, 11]]);
  });

  test('test_taskgroup_03: a child cancelled by hand is no error', async () => {
    const r = await outcome(
      coroutine(function* main(): Coroutine<[boolean, number]> {
        let t1!: Task<number>;
        let t2!: Task<number>;
        yield* new TaskGroup().run(function* body(g) {
          t1 = g.createTask(valueAfter(1, 42));
          yield* sleep(0.15);
          t1.cancel();
          t2 = g.createTask(valueAfter(0.2, 11));
        });
        return [t1.cancelled(), t2.result()];
      }),
    );
    assert.deepEqual(r, ['ok', [true, 11]]);
  });

  test('test_taskgroup_04: a failing child cancels its sibling; the block throws ExceptionGroup', async () => {
    let num = 0;
    let t2Cancel = false;
    let t2!: Task<void>;
    const foo2 = coroutine(function* foo2(): Coroutine<void> {
      try {
        yield* sleep(1);
      } catch (e) {
        if (e instanceof CancelledError) t2Cancel = true;
        throw e;
      }
      num += 1;
    });
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body(g) {
        g.createTask(crashAfter(0.1));
        t2 = g.createTask(foo2());
      });
      num += 10;
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        yield* createTask(runner());
      }),
    );
    assert.equal(r[0], 'error');
    assert.deepEqual(errorTypes(r[1]), new Set([ZeroDivisionError]));
    assert.equal((r[1] as Error).message, 'unhandled errors in a TaskGroup');
    assert.equal(num, 0);
    assert.equal(t2Cancel, true);
    assert.equal(t2.cancelled(), true);
  });

  test('test_cancel_children_on_child_error: children and the body are cancelled, errors gathered', async () => {
    let num = 0;
    let t2Cancel = false;
    let runnerCancel = false;
    const foo2 = coroutine(function* foo2(): Coroutine<void> {
      try {
        yield* sleep(5);
      } catch (e) {
        t2Cancel = true;
        throw e;
      }
      num += 1;
    });
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body(g) {
        g.createTask(crashAfter(0.1));
        g.createTask(crashAfter(0.1));
        g.createTask(crashAfter(0.1));
        g.createTask(foo2());
        try {
          yield* sleep(10);
        } catch (e) {
          if (e instanceof CancelledError) runnerCancel = true;
          throw e;
        }
      });
      num += 10;
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        yield* createTask(runner());
      }),
    );
    assert.equal(r[0], 'error');
    assert.deepEqual(errorTypes(r[1]), new Set([ZeroDivisionError]));
    assert.equal((r[1] as ExceptionGroup).exceptions.length, 3);
    assert.equal(num, 0);
    assert.equal(t2Cancel, true);
    assert.equal(runnerCancel, true);
  });

  test('test_cancellation: cancelling the parent cancels every child; its message survives', async () => {
    let num = 0;
    const foo = coroutine(function* foo(): Coroutine<void> {
      try {
        yield* sleep(5);
      } catch (e) {
        num += 1;
        throw e;
      }
    });
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body(g) {
        for (let i = 0; i < 5; i++) g.createTask(foo());
      });
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.1);
        assert.equal(t.done(), false);
        t.cancel('test');
        yield* t;
      }),
    );
    assert.equal(r[0], 'error');
    assert.ok(r[1] instanceof CancelledError);
    assert.equal((r[1] as Error).message, 'test');
    assert.equal(num, 5);
  });

  test("test_taskgroup_07: the body and the children all see the parent's cancellation", async () => {
    let num = 0;
    const foo = coroutine(function* foo(): Coroutine<void> {
      try {
        yield* sleep(5);
      } catch (e) {
        num += 1;
        throw e;
      }
    });
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body(g) {
        for (let i = 0; i < 5; i++) g.createTask(foo());
        try {
          yield* sleep(10);
        } catch (e) {
          num += 10;
          throw e;
        }
      });
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.1);
        t.cancel();
        yield* t;
      }),
    );
    assert.ok(r[1] instanceof CancelledError);
    assert.equal(num, 15);
  });

  test("test_cancellation_in_body: a cancel from outside wins over the children's errors that it caused", async () => {
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body(g) {
        for (let i = 0; i < 5; i++) g.createTask(crashAfter(0.1));
        yield* sleep(10);
      });
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.05); // before the children fail (no tie on the virtual clock)
        assert.equal(t.done(), false);
        t.cancel('test');
        yield* t;
      }),
    );
    assert.ok(r[1] instanceof CancelledError);
    assert.equal((r[1] as Error).message, 'test');
  });

  for (const [name, pause] of [
    ['test_taskgroup_09: the body failing after a pause cancels the children', true],
    ['test_taskgroup_10: the body failing at once cancels the children', false],
  ] as const) {
    test(name, async () => {
      let t1!: Task<number>;
      let t2!: Task<number>;
      const r = await outcome(
        coroutine(function* main(): Coroutine<void> {
          yield* new TaskGroup().run(function* body(g) {
            t1 = g.createTask(valueAfter(1, 42));
            t2 = g.createTask(valueAfter(2, 11));
            if (pause) yield* sleep(0.1);
            throw new ZeroDivisionError('1 / 0');
          });
        }),
      );
      assert.deepEqual(errorTypes(r[1]), new Set([ZeroDivisionError]));
      assert.equal(t1.cancelled(), true);
      assert.equal(t2.cancelled(), true);
    });
  }

  test('test_taskgroup_11: nested groups, the outer task cancelled: CancelledError', async () => {
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* outer() {
        yield* new TaskGroup().run(function* inner(g2) {
          for (let i = 0; i < 5; i++) g2.createTask(crashAfter(0.1));
          yield* sleep(10);
        });
      });
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.05); // before the children fail (no tie on the virtual clock)
        assert.equal(t.done(), false);
        t.cancel();
        yield* t;
      }),
    );
    assert.ok(r[1] instanceof CancelledError);
  });

  test('test_taskgroup_12: nested groups with a child in the outer one: CancelledError', async () => {
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* outer(g1) {
        g1.createTask(sleep(10));
        yield* new TaskGroup().run(function* inner(g2) {
          for (let i = 0; i < 5; i++) g2.createTask(crashAfter(0.1));
          yield* sleep(10);
        });
      });
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.05); // before the children fail (no tie on the virtual clock)
        t.cancel();
        yield* t;
      }),
    );
    assert.ok(r[1] instanceof CancelledError);
  });

  test('test_taskgroup_13: the outer child fails first: the inner group is cancelled quietly', async () => {
    const r = await outcome(
      coroutine(function* runner(): Coroutine<void> {
        yield* new TaskGroup().run(function* outer(g1) {
          g1.createTask(crashAfter(0.1, () => new ValueErr('0.1')));
          yield* new TaskGroup().run(function* inner(g2) {
            g2.createTask(crashAfter(10, () => new ValueErr('10')));
          });
        });
      }),
    );
    assert.deepEqual(errorTypes(r[1]), new Set([ValueErr]));
  });

  test('test_taskgroup_14: the inner child fails first: its group nests in the outer group', async () => {
    const r = await outcome(
      coroutine(function* runner(): Coroutine<void> {
        yield* new TaskGroup().run(function* outer(g1) {
          g1.createTask(crashAfter(10, () => new ValueErr('10')));
          yield* new TaskGroup().run(function* inner(g2) {
            g2.createTask(crashAfter(0.1, () => new ValueErr('0.1')));
          });
        });
      }),
    );
    assert.deepEqual(errorTypes(r[1]), new Set([ExceptionGroup]));
    assert.deepEqual(errorTypes((r[1] as ExceptionGroup).exceptions[0]), new Set([ValueErr]));
  });

  // In 3.11 (checked against CPython 3.11.7) the child failing while the body is still
  // handling the outside cancel makes the group's error win: ExceptionGroup, not
  // CancelledError (later versions changed this).
  test('test_taskgroup_15: a child failing while the body handles an outside cancel: the ExceptionGroup wins (3.11)', async () => {
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body(g1) {
        g1.createTask(crashAfter(0.3));
        try {
          yield* sleep(10);
        } catch (e) {
          yield* sleep(0.5);
          throw e;
        }
      });
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.1);
        t.cancel();
        yield* t;
      }),
    );
    assert.deepEqual(errorTypes(r[1]), new Set([ZeroDivisionError]));
  });

  test('test_taskgroup_16: the same one task further down (3.11: ExceptionGroup)', async () => {
    const nestedRunner = coroutine(function* nestedRunner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body(g1) {
        g1.createTask(crashAfter(0.3));
        try {
          yield* sleep(10);
        } catch (e) {
          yield* sleep(0.5);
          throw e;
        }
      });
    });
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* createTask(nestedRunner());
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.1);
        t.cancel();
        yield* t;
      }),
    );
    assert.deepEqual(errorTypes(r[1]), new Set([ZeroDivisionError]));
  });

  test('test_taskgroup_17: a group without children, its task cancelled: CancelledError', async () => {
    let num = 0;
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body() {
        try {
          yield* sleep(10);
        } catch (e) {
          num += 10;
          throw e;
        }
      });
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.1);
        t.cancel();
        yield* t;
      }),
    );
    assert.ok(r[1] instanceof CancelledError);
    assert.equal(num, 10);
  });

  test('test_taskgroup_18: a body turning its cancellation into an error: ExceptionGroup of it', async () => {
    let num = 0;
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body() {
        try {
          yield* sleep(10);
        } catch {
          num += 10;
          throw new MyExc();
        }
      });
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.1);
        t.cancel();
        yield* t;
      }),
    );
    assert.deepEqual(errorTypes(r[1]), new Set([MyExc]));
    assert.equal(num, 10);
  });

  test("test_taskgroup_19: the body's error and the child's error are thrown together", async () => {
    const nested = coroutine(function* nested(): Coroutine<void> {
      try {
        yield* sleep(10);
      } finally {
        // eslint-disable-next-line no-unsafe-finally
        throw new MyExc();
      }
    });
    const r = await outcome(
      coroutine(function* runner(): Coroutine<void> {
        yield* new TaskGroup().run(function* body(g) {
          g.createTask(crashAfter(0.1));
          yield* nested();
        });
      }),
    );
    assert.deepEqual(errorTypes(r[1]), new Set([MyExc, ZeroDivisionError]));
  });

  test('test_taskgroup_22: cancelled while only waiting for its children: CancelledError', async () => {
    const runner = coroutine(function* runner(): Coroutine<void> {
      yield* new TaskGroup().run(function* body(g) {
        g.createTask(valueAfter(1, 42));
        g.createTask(valueAfter(2, 11));
      });
    });
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const t = createTask(runner());
        yield* sleep(0.05);
        t.cancel();
        yield* t;
      }),
    );
    assert.ok(r[1] instanceof CancelledError);
  });

  test('test_taskgroup_23: finished children leave the group', async () => {
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        yield* new TaskGroup().run(function* body(g) {
          for (let count = 0; count < 10; count++) {
            yield* sleep(0.1);
            g.createTask(sleep(0.3));
            if (count === 5) assert.ok(g.tasks().size < 5);
          }
          yield* sleep(1.35);
          assert.equal(g.tasks().size, 0);
        });
      }),
    );
    assert.deepEqual(r, ['ok', undefined]);
  });

  test('test_taskgroup_24: a child may add children', async () => {
    const root = coroutine(function* root(g: TaskGroup): Coroutine<void> {
      yield* sleep(0.1);
      g.createTask(sleep(0.1));
      g.createTask(sleep(0.2));
    });
    let loopTime = -1;
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        yield* new TaskGroup().run(function* body(g) {
          g.createTask(root(g));
        });
        loopTime = Math.round(getRunningLoop().time() * 10) / 10;
      }),
    );
    assert.deepEqual(r, ['ok', undefined]);
    assert.equal(loopTime, 0.3);
  });

  test('test_taskgroup_25: children multiplying until a sibling fails', async () => {
    let nhydras = 0;
    const hydra: (g: TaskGroup) => Coroutine<void> = coroutine(function* hydra(g: TaskGroup): Coroutine<void> {
      nhydras += 1;
      yield* sleep(0.01);
      g.createTask(hydra(g));
      g.createTask(hydra(g));
    });
    const hercules = coroutine(function* hercules(): Coroutine<void> {
      while (nhydras < 10) yield* sleep(0.015);
      throw new ZeroDivisionError('1 / 0');
    });
    const r = await outcome(
      coroutine(function* runner(): Coroutine<void> {
        yield* new TaskGroup().run(function* body(g) {
          g.createTask(hydra(g));
          g.createTask(hercules());
        });
      }),
    );
    assert.deepEqual(errorTypes(r[1]), new Set([ZeroDivisionError]));
    assert.ok(nhydras >= 10);
  });

  test('test_taskgroup_task_name: createTask passes the name on', async () => {
    const r = await outcome(
      coroutine(function* main(): Coroutine<string> {
        return yield* new TaskGroup().run(function* body(g) {
          return g.createTask(sleep(0), { name: 'yolo' }).getName();
        });
      }),
    );
    assert.deepEqual(r, ['ok', 'yolo']);
  });
});

describe("TaskGroup: entering, refusals and the parent's cancel bookkeeping", () => {
  test('test_taskgroup_double_enter: a group runs once', async () => {
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const g = new TaskGroup();
        yield* g.run(function* body() {});
        yield* g.run(function* again() {});
      }),
    );
    assert.ok(r[1] instanceof RuntimeError && /already been entered/.test(r[1].message));
  });

  test('test_taskgroup_without_parent_task: createTask before the block, and after it, are refused', async () => {
    const g = new TaskGroup();
    const closed: string[] = [];
    const child = coroutine(function* child(): Coroutine<void> {
      try {
        yield;
      } finally {
        closed.push('closed');
      }
    });
    assert.throws(
      () => g.createTask(child()),
      (e) => e instanceof RuntimeError && /has not been entered/.test(e.message),
    );
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        yield* g.run(function* body() {});
        g.createTask(child());
      }),
    );
    assert.ok(r[1] instanceof RuntimeError && /is finished/.test(r[1].message));
  });

  test('test_create_task_while_aborting: a group shutting down refuses new children', async () => {
    let refusal: unknown = null;
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        yield* new TaskGroup().run(function* body(g) {
          g.createTask(crashAfter(0.1));
          try {
            yield* sleep(10);
          } catch (e) {
            try {
              g.createTask(sleep(1));
            } catch (refused) {
              refusal = refused;
            }
            throw e;
          }
        });
      }),
    );
    assert.deepEqual(errorTypes(r[1]), new Set([ZeroDivisionError]));
    assert.ok(refusal instanceof RuntimeError && /shutting down/.test(refusal.message));
  });

  test("test_taskgroup_uncancel: the parent task catching the group's error is not left cancelling", async () => {
    const r = await outcome(
      coroutine(function* main(): Coroutine<[number, number, string]> {
        const me = getRunningLoop().currentTask()!;
        try {
          yield* new TaskGroup().run(function* body(g) {
            g.createTask(crashAfter(0.1));
            yield* sleep(10);
          });
        } catch (e) {
          assert.ok(e instanceof ExceptionGroup);
        }
        const cancelling = me.cancelling();
        // Nothing pending: the next await is not interrupted.
        yield* sleep(1);
        return [cancelling, me.cancelling(), 'after'];
      }),
    );
    assert.deepEqual(r, ['ok', [0, 0, 'after']]);
  });

  test('test_taskgroup_cancel_from_outside_kept: an outside cancel during the abort stays pending', async () => {
    const r = await outcome(
      coroutine(function* main(): Coroutine<string> {
        const inner = createTask(
          coroutine(function* runner(): Coroutine<void> {
            yield* new TaskGroup().run(function* body(g) {
              g.createTask(crashAfter(0.1));
              try {
                yield* sleep(10);
              } catch (e) {
                // An outside cancel arrives while the group is aborting.
                getRunningLoop().currentTask()!.cancel();
                throw e;
              }
            });
          })(),
        );
        try {
          yield* inner;
        } catch (e) {
          return e instanceof ExceptionGroup ? `group, cancelling=${inner.cancelling()}` : String(e);
        }
        return 'no error';
      }),
    );
    // The group's errors have priority over the pending cancel; the count keeps the outside request.
    assert.deepEqual(r, ['ok', 'group, cancelling=1']);
  });
});

describe('TaskGroup: the inspection interface', () => {
  test('the parent waiting at the end of the block stands for the children', async () => {
    const r = await outcome(
      coroutine(function* main(): Coroutine<void> {
        const parent = getRunningLoop().currentTask()!;
        let children: Task<unknown>[] = [];
        const watcher = getRunningLoop().createTask(
          coroutine(function* watcher(): Coroutine<void> {
            yield* sleep(0.5);
            const awaited = parent[inspect]().awaiting!;
            const view = awaited[inspect]();
            assert.equal(view.kind, 'taskGroup');
            assert.deepEqual([...view.inner()], children);
            assert.deepEqual(view.waitingTasks(), [parent]);
          })(),
        );
        yield* new TaskGroup().run(function* body(g) {
          children = [g.createTask(sleep(1)), g.createTask(sleep(2))];
        });
        yield* watcher;
      }),
    );
    assert.deepEqual(r, ['ok', undefined]);
  });
});
