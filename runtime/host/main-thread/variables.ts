// Runs on a runtime host's main thread (a live host's, and a line replay host's). Variables as
// the protocol shows them: numeric handles for the inspector's string handles (HandleTable),
// locals and children as VariableInfo, and `evaluate` (with a frame: its locals bound as
// variables and `this` as its receiver; without: `loop`, `tasks`, `task(id)`, `crawler`).
//
// Invariants: each taskDetail / evaluate makes one handle group, the last GROUPS_KEPT stay valid
// and an older handle is an error saying it expired; objects are the real objects, primitives
// come from their previews (a string cut at the preview limit says so).

import { ProtocolError } from '../../../protocol/rpc';
import type { VariableInfo } from '../../../protocol/host-protocol';
import type { GeneratorReader, LocalVariable } from '../../inspect/generator-reader';
import { errorText, evaluateOverLocals } from '../../inspect/local-expressions';
import {
  previewValue,
  valueOfPreview,
  type HandleSink,
  type NamedPreview,
  type ValuePreview,
} from '../../inspect/value-preview';

/** Handle groups kept alive (each taskDetail or evaluate makes one). */
const GROUPS_KEPT = 64;

export class VariableStore {
  private nextHandle = 1;
  private readonly toInspector = new Map<number, string>();
  private readonly toNumber = new Map<string, number>();
  private readonly groups: Array<{ group: string; handles: number[] }> = [];

  constructor(readonly reader: GeneratorReader) {}

  /** A new handle group (older groups beyond GROUPS_KEPT are released). */
  newGroup(): HandleSink {
    const group = this.reader.newHandleGroup();
    this.groups.push({ group, handles: [] });
    while (this.groups.length > GROUPS_KEPT) {
      const old = this.groups.shift()!;
      for (const h of old.handles) {
        const s = this.toInspector.get(h);
        this.toInspector.delete(h);
        if (s !== undefined) this.toNumber.delete(s);
      }
      this.reader.releaseHandles(old.group);
    }
    return { table: this.reader.handles, group };
  }

  /** Releases every group. */
  clear(): void {
    for (const g of this.groups) this.reader.releaseHandles(g.group);
    this.groups.length = 0;
    this.toInspector.clear();
    this.toNumber.clear();
  }

  private numberOf(handle: string | null): number {
    if (handle === null) return 0;
    let n = this.toNumber.get(handle);
    if (n === undefined) {
      n = this.nextHandle++;
      this.toNumber.set(handle, n);
      this.toInspector.set(n, handle);
      const group = this.reader.handles.groupOf(handle);
      this.groups.find((g) => g.group === group)?.handles.push(n);
    }
    return n;
  }

  info(name: string, value: ValuePreview): VariableInfo {
    return { name, value: value.text, type: value.className ?? value.type, handle: this.numberOf(value.handle) };
  }

  localsOf(locals: readonly LocalVariable[]): VariableInfo[] {
    return locals.map((l) => this.info(l.name, l.value));
  }

  /** The children of a handle's value. */
  children(handle: number): VariableInfo[] {
    const s = this.toInspector.get(handle);
    if (s === undefined || !this.reader.handles.has(s))
      throw new ProtocolError(
        `variables: handle ${handle} is unknown or expired (handles live for the last ${GROUPS_KEPT} taskDetail/evaluate requests)`,
      );
    const page = this.reader.readChildren(s);
    return page.children.map((c: NamedPreview) => this.info(c.name, c.value));
  }

  /** The real value behind a local (objects through their handle, primitives from the preview). */
  valueOfLocal(l: LocalVariable): { value: unknown; cut: boolean } {
    const v = l.value;
    return v.handle !== null ? { value: this.reader.handles.get(v.handle), cut: false } : valueOfPreview(v);
  }

  /** Evaluates `expression` with `bindings` as variables and `self` as `this`; the result as a variable. */
  evaluate(
    expression: string,
    bindings: ReadonlyArray<readonly [string, unknown]>,
    self: unknown,
    note: string | null,
  ): { value: string; type: string; handle: number } {
    const r = evaluateOverLocals(expression, bindings, { self });
    if (!r.ok && r.stage === 'parse')
      throw new ProtocolError(
        `evaluate: the expression does not parse: ${r.error instanceof Error ? r.error.message : String(r.error)}`,
      );
    if (!r.ok) throw new ProtocolError(`evaluate: the expression threw ${errorText(r.error)}`, 'evaluationFailed');
    const result = r.value;
    const sink = this.newGroup();
    const preview = previewValue(result, sink);
    const info = this.info('result', preview);
    return { value: note === null ? info.value : `${info.value}  (${note})`, type: info.type, handle: info.handle };
  }
}
