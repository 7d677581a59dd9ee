// The HTTP statuses that redirect: one set for every client and crawler of the project (the
// keep-alive session, the chapter's crawler, the teaching crawls), so they never disagree on
// what a redirect is.
//
// 300 (Multiple Choices) counts when it names a Location: RFC 9110 §15.4.1 lets a client
// follow the server's preferred choice, and the chapter's crawler follows it. 304 (Not
// Modified) and 305/306 are not redirects to follow.

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([300, 301, 302, 303, 307, 308]);

/** True for a status whose Location is followed (300, 301, 302, 303, 307, 308). */
export function isRedirectStatus(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}
