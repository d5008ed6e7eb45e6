/**
 * A credential that cannot leak by accident: printing, logging, JSON-serializing or
 * `util.inspect`-ing it shows a placeholder. Only `reveal()` gives the value, and only the code
 * that puts it on the wire calls it.
 */
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  static from(value: string | Secret): Secret {
    return value instanceof Secret ? value : new Secret(value);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return `Secret(${REDACTED})`;
  }
}
