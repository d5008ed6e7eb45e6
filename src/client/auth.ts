/**
 * Credentials on the wire. Two ways in:
 * - API token: a static `Authorization: PVEAPIToken=USER@REALM!TOKENID=SECRET` header, no CSRF.
 * - Ticket: POST /access/ticket with user@realm + password (+ a second factor when PVE answers
 *   `NeedTFA`), then `Cookie: PVEAuthCookie=<ticket>` and, on writes, `CSRFPreventionToken`.
 *   Tickets live 2 h; we renew after `renewAfterMs` (default 1 h) by posting the ticket as the
 *   password, and log in again with the password when renewal is refused or a call gets a 401.
 */
import { z } from 'zod';
import type { HttpMethod } from '../schema/model.js';
import { PveAuthError, PveConfigError } from './errors.js';
import { Secret } from './secret.js';

export interface TokenAuthOptions {
  kind: 'token';
  /** `user@realm!tokenname`. */
  tokenId: string;
  secret: Secret | string;
}

/** Supplies a second factor. Return a TOTP code, or a full response such as `recovery:<key>`. */
export type OtpProvider = (info: { userid: string }) => string | Promise<string>;

export interface TicketAuthOptions {
  kind: 'ticket';
  /** `user` or `user@realm`. */
  username: string;
  /** Realm when `username` has none; default `pam`. */
  realm?: string;
  password: Secret | string;
  /** Second factor, asked for only when the server answers NeedTFA. */
  otp?: string | OtpProvider;
  /** Renew the ticket when it is older than this (default 1 h; PVE tickets expire after 2 h). */
  renewAfterMs?: number;
}

export type AuthOptions = TokenAuthOptions | TicketAuthOptions;

export const DEFAULT_RENEW_AFTER_MS = 3_600_000;

export interface Credentials {
  headers: Record<string, string>;
  /** Which login these headers come from; `recover` uses it to avoid re-logging in twice. */
  generation: number;
}

export interface Authenticator {
  readonly kind: 'token' | 'ticket';
  /** `root@pam!mcp` for tokens, `root@pam` for users. Never a secret. */
  readonly authId: string;
  credentials(method: HttpMethod, signal?: AbortSignal): Promise<Credentials>;
  /**
   * After a 401 on a call made with `generation`: get fresh credentials if possible.
   * True when the call may be repeated (once).
   */
  recover(generation: number, signal?: AbortSignal): Promise<boolean>;
  /** Force a fresh login (ticket) — a no-op for tokens. */
  login(signal?: AbortSignal): Promise<void>;
}

/** Sends POST /access/ticket without credentials and returns the envelope's `data`. */
export type TicketEndpoint = (params: Record<string, string>, signal?: AbortSignal) => Promise<unknown>;

/** `user@realm!tokenname`, as PVE's token regex accepts it. */
export const TOKEN_ID_PATTERN = /^[^\s@!]+@[^\s@!]+![A-Za-z][A-Za-z0-9._-]*$/;

export class TokenAuthenticator implements Authenticator {
  readonly kind = 'token' as const;
  readonly authId: string;
  readonly #header: Secret;

  constructor(options: TokenAuthOptions, clusterName: string) {
    if (!TOKEN_ID_PATTERN.test(options.tokenId)) {
      throw new PveConfigError([
        {
          key: `clusters.${clusterName}.auth.tokenId`,
          message: `'${options.tokenId}' is not a token ID: expected user@realm!tokenname, e.g. root@pam!mcp`,
        },
      ]);
    }
    this.authId = options.tokenId;
    // PVE splits at the last '=', so the ID/secret separator must be '=' (':' is Proxmox Backup Server's).
    this.#header = new Secret(`PVEAPIToken=${options.tokenId}=${Secret.from(options.secret).reveal()}`);
  }

  async credentials(): Promise<Credentials> {
    return { headers: { authorization: this.#header.reveal() }, generation: 0 };
  }

  async recover(): Promise<boolean> {
    return false;
  }

  async login(): Promise<void> {}
}

const loginResponse = z.looseObject({
  username: z.string(),
  ticket: z.string().min(1),
  CSRFPreventionToken: z.string().optional(),
  NeedTFA: z.union([z.number(), z.boolean()]).optional(),
});

interface TicketState {
  ticket: Secret;
  csrf: Secret;
  obtainedAt: number;
}

export class TicketAuthenticator implements Authenticator {
  readonly kind = 'ticket' as const;
  readonly authId: string;
  readonly #password: Secret;
  readonly #otp: string | OtpProvider | undefined;
  readonly #renewAfterMs: number;
  readonly #endpoint: TicketEndpoint;
  readonly #now: () => number;
  #state: TicketState | undefined;
  #generation = 0;
  #pending: Promise<void> | undefined;

  constructor(options: TicketAuthOptions, endpoint: TicketEndpoint, now: () => number = Date.now) {
    this.authId = options.username.includes('@') ? options.username : `${options.username}@${options.realm ?? 'pam'}`;
    this.#password = Secret.from(options.password);
    this.#otp = options.otp;
    this.#renewAfterMs = options.renewAfterMs ?? DEFAULT_RENEW_AFTER_MS;
    this.#endpoint = endpoint;
    this.#now = now;
  }

  /** Age of the current ticket in ms, undefined before the first login. */
  get ticketAgeMs(): number | undefined {
    return this.#state ? this.#now() - this.#state.obtainedAt : undefined;
  }

  async credentials(method: HttpMethod, signal?: AbortSignal): Promise<Credentials> {
    if (!this.#state) await this.#once(() => this.#passwordLogin(signal));
    else if (this.#now() - this.#state.obtainedAt >= this.#renewAfterMs) await this.#once(() => this.#renew(signal));
    // #once only resolves after #accept stored a ticket (it throws otherwise).
    const state = this.#state as TicketState;
    const headers: Record<string, string> = { cookie: `PVEAuthCookie=${state.ticket.reveal()}` };
    // PVE checks the CSRF token on every non-GET ticket request, DELETE included.
    if (method !== 'GET') headers.csrfpreventiontoken = state.csrf.reveal();
    return { headers, generation: this.#generation };
  }

  async recover(generation: number, signal?: AbortSignal): Promise<boolean> {
    // Another call already logged in again after this one was sent: just repeat with the new ticket.
    if (generation !== this.#generation) return true;
    await this.#once(() => this.#passwordLogin(signal));
    return true;
  }

  async login(signal?: AbortSignal): Promise<void> {
    await this.#once(() => this.#passwordLogin(signal));
  }

  /** Concurrent callers share one login/renewal instead of each starting their own. */
  #once(run: () => Promise<void>): Promise<void> {
    this.#pending ??= run().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #renew(signal?: AbortSignal): Promise<void> {
    const state = this.#state;
    if (!state) return this.#passwordLogin(signal);
    try {
      const data = await this.#endpoint({ username: this.authId, password: state.ticket.reveal() }, signal);
      this.#accept(this.#parse(data));
    } catch (err) {
      // Expired or revoked ticket: fall back to the password.
      if (err instanceof PveAuthError) return this.#passwordLogin(signal);
      throw err;
    }
  }

  async #passwordLogin(signal?: AbortSignal): Promise<void> {
    const first = this.#parse(await this.#endpoint({ username: this.authId, password: this.#password.reveal() }, signal));
    if (!first.NeedTFA) {
      this.#accept(first);
      return;
    }
    const response = await this.#secondFactor();
    const second = this.#parse(
      await this.#endpoint({ username: this.authId, 'tfa-challenge': first.ticket, password: response }, signal),
    );
    if (second.NeedTFA) throw this.#tfaError('the server asked for a second factor again after the one given');
    this.#accept(second);
  }

  async #secondFactor(): Promise<string> {
    if (this.#otp === undefined) {
      throw this.#tfaError('user has two-factor authentication: give an "otp" code or callback, or use an API token');
    }
    const code = (typeof this.#otp === 'string' ? this.#otp : await this.#otp({ userid: this.authId })).trim();
    // PVE takes `<type>:<value>` in the password field; a bare code means TOTP.
    return /^[a-z0-9]+:/.test(code) ? code : `totp:${code}`;
  }

  #tfaError(message: string): PveAuthError {
    return new PveAuthError({ status: 200, pveMessage: 'second factor required', method: 'POST', path: '/access/ticket' }, `${this.authId}: ${message}.`);
  }

  #parse(data: unknown): z.infer<typeof loginResponse> {
    const parsed = loginResponse.safeParse(data);
    if (!parsed.success) {
      throw new PveAuthError(
        { status: 200, pveMessage: 'login answer without a ticket', method: 'POST', path: '/access/ticket' },
        'The server did not return a ticket: is the URL a Proxmox VE node?',
      );
    }
    return parsed.data;
  }

  #accept(login: z.infer<typeof loginResponse>): void {
    if (!login.CSRFPreventionToken) {
      throw new PveAuthError(
        { status: 200, pveMessage: 'login answer without a CSRF token', method: 'POST', path: '/access/ticket' },
        'The server returned a ticket without CSRFPreventionToken: is the URL a Proxmox VE node?',
      );
    }
    this.#state = { ticket: new Secret(login.ticket), csrf: new Secret(login.CSRFPreventionToken), obtainedAt: this.#now() };
    this.#generation++;
  }
}
