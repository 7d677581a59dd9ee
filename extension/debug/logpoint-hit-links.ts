// The links of a past logpoint's hits in the Debug Console (past-logpoints.ts): each hit's line
// ends with a URI of this extension (`<uriScheme>://coroscope.coroscope/logpoint-hit?session=ID&hit=N`),
// which the Debug Console makes clickable; opening it comes here (the extension's URI handler),
// and the debug session named goes to that hit (`coroscope/goToLogpointHit`): the debugger and
// the panel show that moment.
//
// Invariants: a link names its debug session, so a click never moves another session; a link of
// a session that has ended, or a hit it no longer lists, says so and moves nothing.

import * as vscode from 'vscode';
import { LOGPOINT_HIT_REQUEST } from './past-logpoints';

const EXTENSION_ID = 'coroscope.coroscope';
const PATH = '/logpoint-hit';

/** The link to hit `index` of debug session `sessionId`. */
export function logpointHitLink(sessionId: string, index: number): string {
  return `${vscode.env.uriScheme}://${EXTENSION_ID}${PATH}?session=${encodeURIComponent(sessionId)}&hit=${index}`;
}

/** Handles the links: the session they name goes to the hit. */
export function registerLogpointHitLinks(sessionOf: (id: string) => vscode.DebugSession | null): vscode.Disposable {
  return vscode.window.registerUriHandler({
    handleUri: async (uri: vscode.Uri): Promise<void> => {
      if (uri.path !== PATH) return;
      const query = new URLSearchParams(uri.query);
      // Digits only: Number() would read a link with no hit, or an empty one, as hit 0.
      const hitText = query.get('hit') ?? '';
      const hit = /^\d+$/.test(hitText) ? Number(hitText) : Number.NaN;
      const session = sessionOf(query.get('session') ?? '');
      if (session === null || !Number.isSafeInteger(hit)) {
        void vscode.window.showWarningMessage('Coroscope: that logpoint hit belongs to a debug session that has ended');
        return;
      }
      try {
        await session.customRequest(LOGPOINT_HIT_REQUEST, { hit });
      } catch (e) {
        void vscode.window.showWarningMessage(`Coroscope: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  });
}
