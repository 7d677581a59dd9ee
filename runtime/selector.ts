// DefaultSelector: Python's selectors.DefaultSelector over the runtime's Sockets.
//
// As in the chapter: register a socket (or its fileno()) for EVENT_READ and/or EVENT_WRITE
// with some data (usually a callback), then select() returns the ready [key, mask] pairs.
// Readiness is level-triggered like epoll's: a socket with unread bytes stays readable.
//
// Node tells us about socket events between its macrotasks; each Socket notifies the
// selectors it is registered with, which keep a set of candidate keys. select() checks
// just those candidates, so its cost does not grow with idle registrations. select() with
// nothing ready and a timeout other than 0 returns a Promise (it has to wait); with
// something ready, or a 0 timeout, it returns the array at once. `await` works for both.

import { KeyError, OSError, ValueError } from './errors';
import type { EventLoop } from './loop';
import { runningLoopOrNull } from './running-loop';

export const EVENT_READ = 1;
export const EVENT_WRITE = 2;

/** What a selector can watch: the runtime's Socket (see socket.ts). */
export interface Selectable {
  fileno(): number;
  /** @internal EVENT_READ / EVENT_WRITE bits that are ready now. */
  _readyMask(): number;
  /** @internal The socket tells these selectors when its readiness may have changed. */
  _attachSelector(sel: DefaultSelector): void;
  _detachSelector(sel: DefaultSelector): void;
}

/** A Selectable or its file number, as Python accepts either. */
export type FileObject = Selectable | number;

export interface SelectorKey {
  /** What was registered (the socket or its number). */
  readonly fileobj: FileObject;
  readonly fd: number;
  readonly events: number;
  readonly data: unknown;
}

interface MutableKey {
  fileobj: FileObject;
  fd: number;
  events: number;
  data: unknown;
  sock: Selectable;
}

/**
 * Open sockets by file number, so `register(sock.fileno(), ...)` works as in the chapter.
 * Numbers are counted per loop (socket.ts), so sockets of two loops (a run and a replay of
 * it) may share one: a number names the running loop's socket, else the one made outside any
 * loop's tick, else the only one that has it.
 */
const openSockets = new Map<number, Array<{ readonly sock: Selectable; readonly loop: EventLoop | null }>>();

/** @internal Sockets add themselves while open, with the loop that numbered them (null: none). */
export function trackOpenSocket(sock: Selectable, loop: EventLoop | null): void {
  const fd = sock.fileno();
  const list = openSockets.get(fd);
  if (list === undefined) openSockets.set(fd, [{ sock, loop }]);
  else list.push({ sock, loop });
}
/** @internal */
export function untrackOpenSocket(fd: number, sock: Selectable): void {
  const list = openSockets.get(fd);
  if (list === undefined) return;
  const rest = list.filter((e) => e.sock !== sock);
  if (rest.length === 0) openSockets.delete(fd);
  else openSockets.set(fd, rest);
}

function socketNumbered(fd: number): Selectable | undefined {
  const list = openSockets.get(fd);
  if (list === undefined) return undefined;
  if (list.length === 1) return list[0]!.sock;
  const loop = runningLoopOrNull();
  return (list.find((e) => e.loop === loop) ?? list.find((e) => e.loop === null))?.sock;
}

function resolveSocket(fileobj: FileObject): Selectable {
  if (typeof fileobj === 'number') {
    const sock = socketNumbered(fileobj);
    if (sock === undefined) throw new OSError('EBADF', `Bad file descriptor: ${fileobj} is not an open socket`);
    return sock;
  }
  if (
    fileobj === null ||
    typeof fileobj !== 'object' ||
    typeof fileobj.fileno !== 'function' ||
    typeof fileobj._readyMask !== 'function'
  ) {
    throw new TypeError(`a Socket or its fileno() was expected, got ${String(fileobj)}`);
  }
  return fileobj;
}

function checkEvents(events: number): void {
  if (!Number.isInteger(events) || events <= 0 || (events & ~(EVENT_READ | EVENT_WRITE)) !== 0) {
    throw new ValueError(`Invalid events: ${events} (use EVENT_READ, EVENT_WRITE or both)`);
  }
}

export class DefaultSelector {
  private _keys = new Map<number, MutableKey>();
  private _candidates = new Set<MutableKey>();
  private _closed = false;
  private _wakeHook: (() => void) | null = null;
  private _waiter: (() => void) | null = null;

  /** Watches `fileobj` for `events`; `data` comes back in the key. Throws if already registered. */
  register(fileobj: FileObject, events: number, data?: unknown): SelectorKey {
    this._checkOpen();
    checkEvents(events);
    const sock = resolveSocket(fileobj);
    const fd = sock.fileno();
    if (fd < 0) throw new OSError('EBADF', 'Bad file descriptor: the socket is closed');
    if (this._keys.has(fd)) throw new KeyError(`${fd} (FD ${fd}) is already registered`);
    const key: MutableKey = { fileobj, fd, events, data, sock };
    this._keys.set(fd, key);
    sock._attachSelector(this);
    this._candidates.add(key);
    this._notifyWaiters();
    return key;
  }

  /** Stops watching `fileobj`; returns its key. Throws if it was not registered. */
  unregister(fileobj: FileObject): SelectorKey {
    const fd = typeof fileobj === 'number' ? fileobj : fileobj.fileno();
    const key = this._keys.get(fd) ?? this._findByObject(fileobj);
    if (key === undefined) throw new KeyError(`${String(fd)} is not registered`);
    this._keys.delete(key.fd);
    this._candidates.delete(key);
    key.sock._detachSelector(this);
    return key;
  }

  /** Changes the events and data of a registration. */
  modify(fileobj: FileObject, events: number, data?: unknown): SelectorKey {
    checkEvents(events);
    const fd = typeof fileobj === 'number' ? fileobj : fileobj.fileno();
    const key = this._keys.get(fd) ?? this._findByObject(fileobj);
    if (key === undefined) throw new KeyError(`${String(fd)} is not registered`);
    key.events = events;
    key.data = data;
    this._candidates.add(key);
    this._notifyWaiters();
    return key;
  }

  /**
   * The ready [key, mask] pairs. `timeout` in seconds: undefined/null waits until something
   * is ready, 0 polls. Returns a Promise only when it has to wait.
   */
  select(timeout?: number | null): Array<[SelectorKey, number]> | Promise<Array<[SelectorKey, number]>> {
    this._checkOpen();
    const ready = this._poll();
    if (ready.length > 0 || (timeout !== undefined && timeout !== null && timeout <= 0)) return ready;
    if (this._keys.size === 0 && (timeout === undefined || timeout === null)) return ready; // nothing could ever become ready
    if (this._waiter !== null) throw new Error('select() is already waiting on this selector');
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const finish = (): void => {
        const events = this._closed ? [] : this._poll();
        if (events.length === 0 && timer !== null && !this._closed) return; // spurious: keep waiting
        if (timer !== null) clearTimeout(timer);
        this._waiter = null;
        resolve(events);
      };
      // A timeout longer than a Node timer can hold (about 24.8 days) waits like no timeout.
      if (timeout !== undefined && timeout !== null && timeout * 1000 <= 2 ** 31 - 1) {
        timer = setTimeout(
          () => {
            timer = null;
            finish();
          },
          Math.ceil(timeout * 1000),
        );
      }
      this._waiter = () => {
        if (timer === null && !this._closed) {
          const events = this._poll();
          if (events.length === 0) return;
          this._waiter = null;
          resolve(events);
          return;
        }
        finish();
      };
    });
  }

  /** The key of a registered object, or undefined. */
  getKey(fileobj: FileObject): SelectorKey | undefined {
    const fd = typeof fileobj === 'number' ? fileobj : fileobj.fileno();
    return this._keys.get(fd) ?? this._findByObject(fileobj);
  }

  /** fd → key, for every registration. */
  getMap(): ReadonlyMap<number, SelectorKey> {
    return this._keys;
  }

  close(): void {
    if (this._closed) return;
    for (const key of this._keys.values()) key.sock._detachSelector(this);
    this._keys.clear();
    this._candidates.clear();
    this._closed = true;
    const w = this._waiter;
    this._waiter = null;
    w?.();
  }

  /** @internal A registered socket's readiness may have changed. */
  _notify(sock: Selectable): void {
    const key = this._keys.get(sock.fileno());
    if (key !== undefined && key.sock === sock) this._candidates.add(key);
    this._notifyWaiters();
  }

  /** @internal The event loop's wake-up when work may have arrived. */
  _setWakeHook(hook: (() => void) | null): void {
    this._wakeHook = hook;
  }

  /** @internal Ready pairs now, pruning candidates that are not ready (level-triggered). */
  _poll(): Array<[SelectorKey, number]> {
    const out: Array<[SelectorKey, number]> = [];
    for (const key of this._candidates) {
      const mask = key.sock._readyMask() & key.events;
      if (mask !== 0) out.push([key, mask]);
      else this._candidates.delete(key);
    }
    return out;
  }

  /**
   * @internal Whether some registration is ready now. `prune` drops the candidates found not
   * ready; the loop prunes only inside its ticks, so the candidates' order (the order of the
   * I/O callbacks) never depends on how often its driver looked between ticks, and a
   * replayed run (runtime/record) dispatches I/O in the recorded order.
   */
  _hasReadyCandidates(prune = true): boolean {
    if (this._candidates.size === 0) return false;
    for (const key of this._candidates) {
      if ((key.sock._readyMask() & key.events) !== 0) return true;
      if (prune) this._candidates.delete(key);
    }
    return false;
  }

  /** @internal Sockets being watched (the loop must not jump a virtual clock past them). */
  _hasInFlight(): boolean {
    return this._keys.size > 0;
  }

  /** @internal */
  _registeredCount(): number {
    return this._keys.size;
  }

  private _notifyWaiters(): void {
    if (this._waiter !== null) this._waiter();
    if (this._wakeHook !== null) this._wakeHook();
  }

  /** A registration made before the socket closed (its fileno() is -1 now); found by identity. */
  private _findByObject(fileobj: FileObject): MutableKey | undefined {
    if (typeof fileobj === 'number' || fileobj.fileno() >= 0) return undefined;
    for (const key of this._keys.values()) if (key.fileobj === fileobj || key.sock === fileobj) return key;
    return undefined;
  }

  private _checkOpen(): void {
    if (this._closed) throw new Error('the selector is closed');
  }
}
