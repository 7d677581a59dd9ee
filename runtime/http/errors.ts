// The HTTP client's typed failures. Every one carries the URL it concerns and says it in
// its message, so a crawl report line is understandable on its own.

import { CoroscopeError } from '../errors';

/** Characters of a URL shown in a message; a longer one is cut (the `url` field keeps it whole). */
const URL_SHOWN = 2048;

export class HttpError extends CoroscopeError {
  readonly url: string;
  constructor(url: string, message: string, options?: { cause?: unknown }) {
    super(`${message} (${url.length > URL_SHOWN ? `${url.slice(0, URL_SHOWN)}…` : url})`, options);
    this.url = url;
  }
}

/** The URL cannot be fetched: not http(s), no host, malformed. */
export class InvalidUrlError extends HttpError {}

/** Connecting failed: refused, reset, DNS lookup, TLS handshake. */
export class HttpConnectionError extends HttpError {}

/** A connect, read or total deadline passed. */
export class HttpTimeoutError extends HttpError {}

/** The server broke HTTP/1.1: bad status line, bad header, bad chunk, body shorter than announced. */
export class HttpProtocolError extends HttpError {}

/** Headers or body larger than the session allows. */
export class HttpTooLargeError extends HttpError {}

/** Too many redirects while following them (allowRedirects). */
export class TooManyRedirectsError extends HttpError {}
