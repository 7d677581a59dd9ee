// The runtime's error classes, named as asyncio and Python's socket module name them.
// Invariant: every error the runtime raises on purpose is one of these (or a built-in
// TypeError/RangeError for misuse of an API), so callers can catch by class. ValueError is
// a RangeError, so both ways of catching a bad value work.

/** Base of the runtime's own errors; sets `name` from the subclass so traces read well. */
export class CoroscopeError extends Error {
  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Delivered into a coroutine at its suspension point when its task is cancelled.
 * Like asyncio's, it is meant to be let out (after cleanup in `finally`): a coroutine that
 * swallows it keeps its task alive.
 */
export class CancelledError extends CoroscopeError {}

/**
 * Python's RuntimeError, as asyncio raises it: the loop is closed or already running, a
 * task awaits itself, a coroutine yielded something that is not a Future.
 */
export class RuntimeError extends CoroscopeError {}

/**
 * Python's ValueError, where asyncio raises it: `taskDone()` called too often, a negative
 * semaphore value, a bounded semaphore released too often, a line over the stream limit.
 * A RangeError too, so code that catches JavaScript's class for a bad value still does.
 */
export class ValueError extends RangeError {
  constructor(message?: string) {
    super(message);
    this.name = 'ValueError';
  }
}

/** asyncio.BrokenBarrierError (a RuntimeError): the Barrier was aborted, or reset while this task waited at it. */
export class BrokenBarrierError extends RuntimeError {}

/**
 * Python's KeyError, as the selectors module raises it: registering twice, or unregistering or modifying what
 * is not registered.
 */
export class KeyError extends CoroscopeError {}

/** An operation on a Future or Task that is not allowed in its current state. */
export class InvalidStateError extends CoroscopeError {}

/** A deadline passed (`waitFor`, `asCompleted` with a timeout, HTTP timeouts). */
export class TimeoutError extends CoroscopeError {}

/** `Queue.getNowait()` on an empty queue. */
export class QueueEmpty extends CoroscopeError {}

/** `Queue.putNowait()` on a full queue. */
export class QueueFull extends CoroscopeError {}

/** Python's OSError: an operating-system level failure, with Node's error code as `code`. */
export class OSError extends CoroscopeError {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(`[${code}] ${message}`, options);
    this.code = code;
  }
}

/**
 * A non-blocking socket operation could not complete now (EAGAIN / EINPROGRESS).
 * As in the chapter: `connect()` throws it while the connection is in progress and
 * `recv()` while no bytes have arrived yet; wait for the selector, then try again.
 */
export class BlockingIOError extends OSError {
  constructor(code: 'EINPROGRESS' | 'EAGAIN', message: string) {
    super(code, message);
  }
}

/** Base of connection failures (Python's ConnectionError). */
export class ConnectionError extends OSError {}
export class ConnectionRefusedError extends ConnectionError {}
export class ConnectionResetError extends ConnectionError {}
export class ConnectionAbortedError extends ConnectionError {}
export class BrokenPipeError extends ConnectionError {}

/** A connect or DNS lookup that timed out at the OS level (ETIMEDOUT). */
export class SocketTimeoutError extends OSError {}

/** Host name resolution failed (Python's socket.gaierror). */
export class AddressLookupError extends OSError {}

/** `StreamReader.readexactly` hit EOF first; `partial` holds what was read. */
export class IncompleteReadError extends CoroscopeError {
  readonly partial: Buffer;
  readonly expected: number | null;
  constructor(partial: Buffer, expected: number | null) {
    super(`${partial.length} bytes read on a total of ${expected === null ? 'undefined' : expected} expected bytes`);
    this.partial = partial;
    this.expected = expected;
  }
}

/** A stream read went past its limit (`readuntil`/`readline` without a separator in range). */
export class LimitOverrunError extends CoroscopeError {
  readonly consumed: number;
  constructor(message: string, consumed: number) {
    super(message);
    this.consumed = consumed;
  }
}

/** Maps a Node.js system error (ECONNREFUSED, ...) to the runtime's OSError subclasses. */
export function osErrorFromNode(err: unknown, what: string): OSError {
  if (err instanceof OSError) return err;
  const e = err as NodeJS.ErrnoException | null;
  const code = (e && typeof e.code === 'string' && e.code) || 'EIO';
  const detail = `${what}: ${e && typeof e.message === 'string' ? e.message : String(err)}`;
  switch (code) {
    case 'ECONNREFUSED':
      return new ConnectionRefusedError(code, detail, { cause: err });
    case 'ECONNRESET':
      return new ConnectionResetError(code, detail, { cause: err });
    case 'ECONNABORTED':
      return new ConnectionAbortedError(code, detail, { cause: err });
    case 'EPIPE':
    case 'ERR_STREAM_WRITE_AFTER_END':
    case 'ERR_STREAM_DESTROYED':
      return new BrokenPipeError(code, detail, { cause: err });
    case 'ETIMEDOUT':
      return new SocketTimeoutError(code, detail, { cause: err });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new AddressLookupError(code, detail, { cause: err });
    default:
      return new OSError(code, detail, { cause: err });
  }
}
