// Where a source opened from the panel goes (a frame, a trace line, a lint's position): never
// in the panel's editor group (it would cover the panel), and without halving the panel when
// a new group has to be made for it (issue 27: the task table's columns shrank to "socket.…").
//
// - An editor group other than the panel's exists: the source opens there (the one the user
//   looked at last among them, else the first), and no group is resized.
// - The panel's group is the only one: the source opens in a new group beside it, and the
//   layout then gives the panel's group PANEL_SHARE of the width (not the even split VS Code
//   makes), so its table keeps its columns.
// Pure: the extension gives the groups and applies the layout (commands.ts).

/** The panel's share of the width when a group is made beside it for a source. */
export const PANEL_SHARE = 0.62;

export interface SourcePlacement {
  /** The view column to open the source in. */
  readonly column: number;
  /** When set, the two-group layout to apply after opening (sizes left to right). */
  readonly layout: { readonly orientation: 0; readonly groups: ReadonlyArray<{ readonly size: number }> } | null;
}

/**
 * `panel`: the panel's view column (undefined: no panel shown); `groups`: the view columns of
 * the editor groups there are; `lastOther`: the column of the editor group other than the
 * panel's that was active last, if known.
 */
export function placeSource(panel: number | undefined, groups: readonly number[], lastOther?: number): SourcePlacement {
  if (panel === undefined) return { column: groups[0] ?? 1, layout: null };
  const others = groups.filter((g) => g !== panel);
  if (others.length > 0)
    return { column: lastOther !== undefined && others.includes(lastOther) ? lastOther : others[0]!, layout: null };
  // Only the panel's group: a new one beside it (to its right), the panel keeping most of the width.
  return { column: panel + 1, layout: { orientation: 0, groups: [{ size: PANEL_SHARE }, { size: 1 - PANEL_SHARE }] } };
}
