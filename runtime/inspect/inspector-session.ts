// InspectorSession: the process's own node:inspector session, used synchronously, the way the
// inspector reads suspended generators without stopping the loop (the facts it relies on:
// docs/design/inspection.md, "Reading frames in-process").
//
// Invariants: one Session per process (`inspectorSession()`); `post` throws if an answer did not
// come synchronously; every objectId's group is released at the end of its read; the debugger is
// on only while learning scripts; the global slot is empty between calls, so the inspector never
// keeps a program object alive.

import { Session, type Debugger, type Runtime } from 'node:inspector';

/** The global property the inspector uses to hand a value to `Runtime.evaluate`. */
const SLOT = '__coroscopeInspectorSlot';

/** The URL of a script as V8 knows it, and the source map URL its text declares (if any). */
export interface ScriptInfo {
  readonly scriptId: string;
  /** `file:///…/x.ts` for modules, `node:…` for Node's own, '' for evals. */
  readonly url: string;
  /** The `//# sourceMappingURL=` of the script (a data: URL for tsx), or null. */
  readonly sourceMapURL: string | null;
}

export class InspectorError extends Error {
  override name = 'InspectorError';
}

type Callback<R> = (err: Error | null, result: R) => void;

function readSlot(): unknown {
  return (globalThis as unknown as Record<string, unknown>)[SLOT];
}

function writeSlot(value: unknown): void {
  (globalThis as unknown as Record<string, unknown>)[SLOT] = value;
}

export class InspectorSession {
  private readonly session: Session;
  private readonly scripts = new Map<string, ScriptInfo>();
  /** ScriptIds a scan did not find: not scanned for again. */
  private readonly unknownScripts = new Set<string>();
  private groupSeq = 0;
  /** Protocol calls made so far (for cost measurements). */
  calls = 0;
  /** Debugger.enable round trips made to learn script URLs. */
  scriptScans = 0;

  constructor() {
    this.session = new Session();
    this.session.connect();
    this.session.on('Debugger.scriptParsed', (m) => this.onScriptParsed(m.params));
    Object.defineProperty(globalThis, SLOT, {
      value: undefined,
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }

  /** Calls a protocol method and returns its answer, which must arrive synchronously. */
  private sync<R>(method: string, start: (cb: Callback<R>) => void): R {
    let answered = false;
    let error: Error | null = null;
    let result: R | undefined;
    this.calls++;
    start((err, res) => {
      answered = true;
      error = err;
      result = res;
    });
    if (!answered)
      throw new InspectorError(
        `node:inspector did not answer ${method} synchronously: this Node version is not supported`,
      );
    if (error !== null) throw new InspectorError(`${method}: ${(error as Error).message}`);
    return result as R;
  }

  getProperties(params: Runtime.GetPropertiesParameterType): Runtime.GetPropertiesReturnType {
    return this.sync('Runtime.getProperties', (cb) => this.session.post('Runtime.getProperties', params, cb));
  }

  callFunctionOn(params: Runtime.CallFunctionOnParameterType): Runtime.CallFunctionOnReturnType {
    const r = this.sync<Runtime.CallFunctionOnReturnType>('Runtime.callFunctionOn', (cb) =>
      this.session.post('Runtime.callFunctionOn', params, cb),
    );
    if (r.exceptionDetails !== undefined)
      throw new InspectorError(`Runtime.callFunctionOn threw: ${r.exceptionDetails.text}`);
    return r;
  }

  releaseObjectGroup(objectGroup: string): void {
    this.sync<null>('Runtime.releaseObjectGroup', (cb) =>
      this.session.post('Runtime.releaseObjectGroup', { objectGroup }, (err) => cb(err, null)),
    );
  }

  /** A fresh object group name; pass it to withObjectGroup. */
  newObjectGroup(): string {
    return `coroscope-${++this.groupSeq}`;
  }

  /** Runs `fn` with a fresh object group and releases every objectId made in it afterwards. */
  withObjectGroup<T>(fn: (group: string) => T): T {
    const group = this.newObjectGroup();
    try {
      return fn(group);
    } finally {
      this.releaseObjectGroup(group);
    }
  }

  /** The objectId of a JS object (one Runtime.evaluate of the global slot). */
  objectIdOf(value: object, group: string): string {
    writeSlot(value);
    try {
      const r = this.sync<Runtime.EvaluateReturnType>('Runtime.evaluate', (cb) =>
        this.session.post(
          'Runtime.evaluate',
          { expression: `globalThis.${SLOT}`, objectGroup: group, silent: true },
          cb,
        ),
      );
      const id = r.result.objectId;
      if (id === undefined) throw new InspectorError('Runtime.evaluate gave no objectId for an object');
      return id;
    } finally {
      writeSlot(undefined);
    }
  }

  /**
   * The remote objects of many JS objects at once: one evaluate of an array holding them and
   * one getProperties on it. Each result carries objectId and className (for a generator
   * object, the name of its generator function).
   */
  remoteObjectsOf(values: readonly object[], group: string): Runtime.RemoteObject[] {
    if (values.length === 0) return [];
    if (values.length === 1) {
      // One evaluate is enough; the className comes with it.
      writeSlot(values[0]);
      try {
        const r = this.sync<Runtime.EvaluateReturnType>('Runtime.evaluate', (cb) =>
          this.session.post(
            'Runtime.evaluate',
            { expression: `globalThis.${SLOT}`, objectGroup: group, silent: true },
            cb,
          ),
        );
        return [r.result];
      } finally {
        writeSlot(undefined);
      }
    }
    const holderId = this.objectIdOf(values.slice(), group);
    const props = this.getProperties({ objectId: holderId, ownProperties: true });
    const out: Runtime.RemoteObject[] = new Array<Runtime.RemoteObject>(values.length);
    for (const p of props.result) {
      const i = Number(p.name);
      if (Number.isInteger(i) && i >= 0 && i < values.length && p.value !== undefined) out[i] = p.value;
    }
    for (let i = 0; i < out.length; i++)
      if (out[i] === undefined) throw new InspectorError(`no remote object for element ${i}`);
    return out;
  }

  /**
   * Brings remote objects back as JS values: calls a function on `thisId` with the given
   * arguments that stores them in the slot, then reads the slot. One protocol call.
   */
  valuesOf(thisId: string, args: readonly Runtime.CallArgument[]): { self: unknown; args: unknown[] } {
    this.callFunctionOn({
      objectId: thisId,
      functionDeclaration: `function (...args) { globalThis.${SLOT} = [this, args]; }`,
      arguments: args.slice(),
      silent: true,
    });
    const got = readSlot();
    writeSlot(undefined);
    if (!Array.isArray(got) || !Array.isArray(got[1])) throw new InspectorError('Runtime.callFunctionOn did not run');
    return { self: got[0], args: got[1] as unknown[] };
  }

  /** The URL and source map URL of a script, learning them from the debugger if needed. */
  scriptInfo(scriptId: string): ScriptInfo | null {
    let info = this.scripts.get(scriptId);
    if (info === undefined && !this.unknownScripts.has(scriptId)) {
      this.scanScripts();
      info = this.scripts.get(scriptId);
      if (info === undefined) this.unknownScripts.add(scriptId);
    }
    return info ?? null;
  }

  /** Enables the debugger just long enough to hear about every script, then disables it. */
  scanScripts(): void {
    this.scriptScans++;
    this.sync<Debugger.EnableReturnType>('Debugger.enable', (cb) => this.session.post('Debugger.enable', cb));
    this.sync<null>('Debugger.disable', (cb) => this.session.post('Debugger.disable', (err) => cb(err, null)));
  }

  private onScriptParsed(p: Debugger.ScriptParsedEventDataType): void {
    if (this.scripts.has(p.scriptId)) return;
    // Node's own scripts never have maps; skip keeping their (absent) map URLs.
    const mapUrl =
      p.url.startsWith('node:') || p.sourceMapURL === undefined || p.sourceMapURL === '' ? null : p.sourceMapURL;
    this.scripts.set(p.scriptId, { scriptId: p.scriptId, url: p.url, sourceMapURL: mapUrl });
  }
}

let shared: InspectorSession | null = null;

/** The process's inspector session (created and connected on first use). */
export function inspectorSession(): InspectorSession {
  shared ??= new InspectorSession();
  return shared;
}
