/** A setting of the HTTP transport that cannot work (TLS files, URLs, hosts); the message says which and what to do. */
export class HttpConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
    this.name = 'HttpConfigError';
  }
}
