// The HTTP client's public names.
export {
  ClientSession,
  parseHttpUrl,
  type ClientSessionOptions,
  type ClientTimeout,
  type RequestOptions,
} from './client-session';
export { ClientResponse } from './client-response';
export { ConnectionPool, type ConnectionPoolOptions } from './connection-pool';
export { HttpHeaders } from './headers';
export { parseResponseHead, bodyFraming, parseChunkSize, type ResponseHead, type BodyFraming } from './response-head';
export {
  HttpError,
  InvalidUrlError,
  HttpConnectionError,
  HttpTimeoutError,
  HttpProtocolError,
  HttpTooLargeError,
  TooManyRedirectsError,
} from './errors';
