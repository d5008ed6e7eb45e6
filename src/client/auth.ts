/**
 * Credentials on the wire. Two ways in:
 * - API token: a static `Authorization: PVEAPIToken=USER@REALM!TOKENID=SECRET` header, no CSRF.
 * - Ticket: POST /access/ticket with user@realm + password (+ a second factor when PVE answers
 *   `NeedTFA`), then `Cookie: PVEAuthCookie=<ticket>` and, on writes, `CSRFPreventionToken`.
 *   Tickets live 2 h on PVE; we renew after `renewAfterMs` (default 1 h, never later than half the
 *   lifetime) by posting the ticket as the password, and log in again with the password when
 *   renewal is refused or a call gets a 401. A ticket known to be expired (or about to be: its age
 *   is past the lifetime less a margin) is never sent, not even to renew it: PVE answers an expired
 *   ticket with a 401 it delays by ~3 s. A 401 for a ticket of age A shows the server's lifetime is
 *   at most A (a cluster configured with shorter tickets): later tickets are renewed before that.
 */
import { z } from 'zod';
import { isPveError } from './error-codes.js';
import { PveConfigError } from './errors.js';
import { PveAuthError } from './http-errors.js';
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
  /** The server's ticket lifetime (default 2 h, PVE's); lowered by what a 401 shows. */
  ticketLifetimeMs?: number;
}

export type AuthOptions = TokenAuthOptions | TicketAuthOptions;

export const DEFAULT_RENEW_AFTER_MS = 3_600_000;
/** PVE's ticket lifetime (`$ticket_lifetime` in PVE::AccessControl). */
export const DEFAULT_TICKET_LIFETIME_MS = 7_200_000;
/** A 401 never teaches a lifetime shorter than this (a revoked ticket can be young). */
const MIN_LEARNED_LIFETIME_MS = 1_000;

/**
 * What goes on the wire, resolved once per login (a token: once): the client keeps it and sends it
 * until `freshUntil`, and asks again only then, so a call reads a field rather than revealing a
 * secret and building headers each time. The client holds it in a private field (printing the
 * client shows none of it).
 */
export interface Credentials {
  /** The headers of a GET. */
  read: Readonly<Record<string, string>>;
  /** The headers of a change (POST, PUT, DELETE): a ticket's CSRF token too. */
  change: Readonly<Record<string, string>>;
  /** Which login these headers come from; `recover` uses it to avoid re-logging in twice. */
  generation: number;
  /** Until when, on the authenticator's clock (`now`), they may be sent without asking again: a token's never end. */
  freshUntil: number;
  /** When the ticket was obtained (`now`): the age it was sent at tells what a 401 for it shows. */
  obtainedAt: number;
}

export interface Authenticator {
  readonly kind: 'token' | 'ticket';
  /** `root@pam!mcp` for tokens, `root@pam` for users. Never a secret. */
  readonly authId: string;
  /** The clock `freshUntil` and `obtainedAt` are on. */
  readonly now: () => number;
  /** Credentials to send now: logs in, or renews a ticket past its renewal age, first. */
  credentials(signal?: AbortSignal): Promise<Credentials>;
  /**
   * After a 401 on a call made with `sent` at `sentAt` (`now`): get fresh credentials if possible.
   * True when the call may be repeated (once).
   */
  recover(sent: Credentials, sentAt: number, signal?: AbortSignal): Promise<boolean>;
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
  readonly now = Date.now;
  readonly #credentials: Credentials;

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
    const headers = { authorization: `PVEAPIToken=${options.tokenId}=${Secret.from(options.secret).reveal()}` };
    this.#credentials = { read: headers, change: headers, generation: 0, freshUntil: Number.POSITIVE_INFINITY, obtainedAt: 0 };
  }

  async credentials(): Promise<Credentials> {
    return this.#credentials;
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
  obtainedAt: number;
  /** The wire form of this ticket, built when it was accepted. */
  credentials: Credentials;
}

export class TicketAuthenticator implements Authenticator {
  readonly kind = 'ticket' as const;
  readonly authId: string;
  readonly #password: Secret;
  readonly #otp: string | OtpProvider | undefined;
  readonly #renewAfterMs: number;
  #lifetimeMs: number;
  readonly #endpoint: TicketEndpoint;
  readonly now: () => number;
  #state: TicketState | undefined;
  #generation = 0;
  #pending: Promise<void> | undefined;

  constructor(options: TicketAuthOptions, endpoint: TicketEndpoint, now: () => number = Date.now) {
    this.authId = options.username.includes('@') ? options.username : `${options.username}@${options.realm ?? 'pam'}`;
    this.#password = Secret.from(options.password);
    this.#otp = options.otp;
    this.#renewAfterMs = options.renewAfterMs ?? DEFAULT_RENEW_AFTER_MS;
    this.#lifetimeMs = options.ticketLifetimeMs ?? DEFAULT_TICKET_LIFETIME_MS;
    this.#endpoint = endpoint;
    this.now = now;
  }

  /** Age of the current ticket in ms, undefined before the first login. */
  get ticketAgeMs(): number | undefined {
    return this.#state ? this.now() - this.#state.obtainedAt : undefined;
  }

  /** The lifetime the server's tickets are taken to have (PVE's, or lower after a 401 showed it). */
  get ticketLifetimeMs(): number {
    return this.#lifetimeMs;
  }

  /** Renew at this age: `renewAfterMs`, but never later than half the lifetime. */
  get #renewAtMs(): number {
    return Math.min(this.#renewAfterMs, this.#lifetimeMs / 2);
  }

  /**
   * From this age a ticket counts as expired: the lifetime less a margin for transit and for the
   * ticket's timestamp, which PVE keeps in whole seconds (a ticket can be a second older there).
   */
  get #expiredAtMs(): number {
    return this.#lifetimeMs - Math.min(300_000, Math.max(this.#lifetimeMs / 10, Math.min(1_000, this.#lifetimeMs / 3)));
  }

  async credentials(signal?: AbortSignal): Promise<Credentials> {
    const age = this.ticketAgeMs;
    if (age === undefined || age >= this.#expiredAtMs) {
      // No ticket, or one that expired (a server idle past the lifetime): the password, never the dead ticket.
      await this.#once(() => (this.#state && this.now() - this.#state.obtainedAt < this.#expiredAtMs ? Promise.resolve() : this.#passwordLogin(signal)));
    } else if (age >= this.#renewAtMs) {
      await this.#once(() => (this.#state && this.now() - this.#state.obtainedAt < this.#renewAtMs ? Promise.resolve() : this.#renew(signal)));
    }
    // #once only resolves after #accept stored a ticket (it throws otherwise).
    return (this.#state as TicketState).credentials;
  }

  async recover(sent: Credentials, sentAt: number, signal?: AbortSignal): Promise<boolean> {
    // Another call already logged in again after this one was sent: just repeat with the new ticket.
    if (sent.generation !== this.#generation) return true;
    // The server refused a ticket sent at this age (not counting PVE's delayed answer): its tickets live no longer.
    this.#lifetimeMs = Math.min(this.#lifetimeMs, Math.max(MIN_LEARNED_LIFETIME_MS, sentAt - sent.obtainedAt));
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
    if (!state || this.now() - state.obtainedAt >= this.#expiredAtMs) return this.#passwordLogin(signal);
    try {
      const data = await this.#endpoint({ username: this.authId, password: state.ticket.reveal() }, signal);
      this.#accept(this.#parse(data));
    } catch (err) {
      // Expired or revoked ticket: fall back to the password.
      if (isPveError(err) && err.code === 'pve-auth') return this.#passwordLogin(signal);
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
    const second = this.#parse(await this.#endpoint({ username: this.authId, 'tfa-challenge': first.ticket, password: response }, signal));
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
      throw new PveAuthError({ status: 200, pveMessage: 'login answer without a ticket', method: 'POST', path: '/access/ticket' }, 'The server did not return a ticket: is the URL a Proxmox VE node?');
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
    const obtainedAt = this.now();
    this.#generation++;
    const read = { cookie: `PVEAuthCookie=${login.ticket}` };
    // PVE checks the CSRF token on every non-GET ticket request, DELETE included.
    const change = { ...read, csrfpreventiontoken: login.CSRFPreventionToken };
    const credentials = { read, change, generation: this.#generation, freshUntil: obtainedAt + this.#renewAtMs, obtainedAt };
    this.#state = { ticket: new Secret(login.ticket), obtainedAt, credentials };
  }
}
