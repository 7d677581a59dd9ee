// Runs on a runtime host's line debugger worker thread (live or line replay host).
//
// The Chrome DevTools Protocol shapes the line debugger reads (node:inspector's own types, narrowed to what is
// read), and the frames of a stop as the line replay compares them (WalkFrame). Types only.

import type { LineStopPrint } from '../../../protocol/host-protocol';

export interface CdpLocation {
  scriptId: string;
  lineNumber: number;
  columnNumber?: number;
}
/** A stretch of a script (Debugger.stepOver's skipList): `start` included, `end` not. */
export interface CdpLocationRange {
  scriptId: string;
  start: { lineNumber: number; columnNumber: number };
  end: { lineNumber: number; columnNumber: number };
}
export interface CdpRemoteObject {
  type: string;
  subtype?: string;
  className?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  objectId?: string;
}
export interface CdpScope {
  type: string;
  name?: string;
  object: CdpRemoteObject;
  /** Where the scope begins and ends in its script (a function's Local scope: its parameters to its end). */
  startLocation?: CdpLocation;
  endLocation?: CdpLocation;
}
export interface CdpCallFrame {
  callFrameId: string;
  functionName: string;
  functionLocation?: CdpLocation;
  location: CdpLocation;
  scopeChain: CdpScope[];
}
export interface CdpPaused {
  callFrames: CdpCallFrame[];
  reason: string;
  hitBreakpoints?: string[];
}
export interface CdpPropertyDescriptor {
  name: string;
  value?: CdpRemoteObject;
  get?: CdpRemoteObject;
}

/**
 * What the line replay's walk does with a stop at one of its breakpoints: go on, stop there, or leave it to
 * the line step under way.
 */
export type WalkVerdict = 'resume' | 'stop' | 'step';

/**
 * A frame as the line replay compares it: its function (by script and start), its source line, its generated
 * position.
 */
export interface WalkFrame {
  readonly frame: CdpCallFrame;
  readonly url: string;
  readonly functionKey: string;
  readonly line: string;
  readonly position: LineStopPrint['frames'][number];
}
