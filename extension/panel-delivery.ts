// PanelDelivery: whether what the extension posts reaches the inspector panel's page. VS Code drops a
// message posted while it counts a panel hidden, and a page loaded anew knows nothing until it asks
// `ready`. So the page is in one of three situations, and only `current` receives events.
//
// Invariants: events go only to a `current` page; a page that may have missed anything (answered or
// posted to while hidden) is `missed` and, once shown, is sent everything again (`resync`) before
// any event; a page loading asks `ready` itself, so it is never resynced.

export type PanelPage =
  /** Loading (HTML set, `ready` not answered yet): it will ask. */
  | { readonly kind: 'loading' }
  /** Answered, and shown ever since: it has everything posted. */
  | { readonly kind: 'current' }
  /** Answered, but hidden since (or when answered): what was posted meanwhile may be lost. */
  | { readonly kind: 'missed' };

export class PanelDelivery {
  private page: PanelPage = { kind: 'loading' };

  get state(): PanelPage {
    return this.page;
  }

  /** Whether an event posted now reaches the page. */
  get deliverable(): boolean {
    return this.page.kind === 'current';
  }

  /** Whether the page has answered `ready` (it runs, and is worth a reveal). */
  get booted(): boolean {
    return this.page.kind !== 'loading';
  }

  /** The HTML was set (anew): the page will ask `ready`. */
  loading(): void {
    this.page = { kind: 'loading' };
  }

  /** `ready` answered, the panel `visible` or not (hidden: VS Code may drop the answer itself). */
  answered(visible: boolean): void {
    this.page = { kind: visible ? 'current' : 'missed' };
  }

  /** VS Code counts the panel hidden: posts may be dropped from now on. */
  hidden(): void {
    if (this.page.kind === 'current') this.page = { kind: 'missed' };
  }

  /** Shown again: true when the page must be sent everything (`resync`); it is current after that. */
  shown(): boolean {
    if (this.page.kind !== 'missed') return false;
    this.page = { kind: 'current' };
    return true;
  }
}
