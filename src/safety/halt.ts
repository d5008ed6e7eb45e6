/**
 * The operator's kill switch: one file on the host whose existence stops every change made through
 * every server and CLI run that uses this host's configuration. The bridge asks `state()` before
 * each write (approved plan steps included, before the write's intent is recorded); reads go on.
 *
 * Where the file lives (`defaultHaltFile`), and why there:
 * - per host, not per state directory: several servers (one per MCP client, `serve --http`, CLI
 *   `run`) with different state directories must all stop at once;
 * - `/etc/pve-code-mcp/halt` when the directory `/etc/pve-code-mcp` exists (an install for the
 *   whole host: root creates the directory, every server of every account reads the file, and only
 *   root — not the account a server runs as — can create or remove it);
 * - else `$XDG_CONFIG_HOME/pve-code-mcp/halt` (`~/.config/pve-code-mcp/halt`), beside the audit key:
 *   the one place every process of a user install already agrees on;
 * - `PVE_HALT_FILE`, and above it the config's `halt.file`, name another path.
 * It is never in the state directory or anywhere else a tool writes: the sandbox has no file
 * system, the bridge only speaks to PVE, and no MCP tool writes files, so nothing an agent sends
 * through this server can create, change or remove it.
 *
 * Anything at the path counts: the JSON `halt()` writes, an empty file made with `touch`, any text
 * (taken as the reason), a directory. A path that cannot be checked (permissions, a file where a
 * directory should be) counts as halted too: the switch fails closed.
 *
 * Replicas sharing state in PostgreSQL have a second switch, the `halt` row of the database
 * (src/safety/halt-postgres.ts), that stops every replica at once; the host file still stops its
 * host. `eitherSwitch` makes the two one `KillSwitch`, the one thing the bridge asks.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmdirSync, statSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';

/** The directory whose existence makes the switch host-wide. */
export const HOST_HALT_DIR = '/etc/pve-code-mcp';

export type HaltState = { halted: false } | HaltedState;

export interface HaltedState {
  halted: true;
  /** The switch file, when the host's file halts. */
  file?: string;
  /** The database (without its password), when its `halt` row halts every replica sharing it. */
  database?: string;
  /** When the halt began: from the file's JSON, else the file's modification time. */
  since?: string;
  by?: string;
  reason?: string;
  /** Set when the path could not be checked: halted because the switch fails closed. */
  problem?: string;
}

export const HALT_ERROR_CODES = ['halt-path', 'halt-write', 'halt-resume'] as const;
export type HaltErrorCode = (typeof HALT_ERROR_CODES)[number];

export class HaltError extends Error {
  override readonly name = 'HaltError';
  constructor(
    readonly code: HaltErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The file when neither the config nor `PVE_HALT_FILE` names one (see the module comment). */
export function defaultHaltFile(env: Record<string, string | undefined> = process.env, hostDir: string = HOST_HALT_DIR): string {
  const explicit = env.PVE_HALT_FILE?.trim();
  if (explicit) return resolve(explicit);
  if (isDirectory(hostDir)) return join(hostDir, 'halt');
  const xdg = env.XDG_CONFIG_HOME?.trim();
  return join(xdg ? xdg : join(homedir(), '.config'), 'pve-code-mcp', 'halt');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Who is halting: the login name, and the sudo caller behind root. */
export function currentOperator(env: Record<string, string | undefined> = process.env): string {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    name = env.USER ?? `uid ${process.getuid?.() ?? '?'}`;
  }
  const sudo = env.SUDO_USER?.trim();
  return sudo && sudo !== name ? `${sudo} (as ${name} via sudo)` : name;
}

/** The content `halt()` writes; a hand-written file may hold anything. */
const recordSchema = z.object({ since: z.string().max(64).optional(), by: z.string().max(200).optional(), reason: z.string().max(2_000).optional() });

/** What is read of a hand-made file: enough for a reason, never a whole device or log. */
const MAX_READ = 4_096;
const MAX_REASON = 500;

/** What the bridge asks before each change: one state, however many switches stand behind it. */
export interface KillSwitch {
  state(): HaltState;
}

/** Halted when any of the switches is (the first one halted, asked in order: put the cheapest first). */
export function eitherSwitch(...switches: KillSwitch[]): KillSwitch {
  return {
    state(): HaltState {
      for (const sw of switches) {
        const state = sw.state();
        if (state.halted) return state;
      }
      return { halted: false };
    },
  };
}

export class HaltSwitch implements KillSwitch {
  private constructor(readonly file: string) {}

  static open(path: string): HaltSwitch {
    if (!isAbsolute(path)) throw new HaltError('halt-path', `the halt file must be an absolute path, got '${path}': set halt.file or PVE_HALT_FILE to one`);
    return new HaltSwitch(path);
  }

  /**
   * One `lstat` per call (0.3 µs when there is no file, 0.7 µs when there is, measured on the
   * development machine; not cached, so a halt takes effect at the very next write);
   * the file is read only when it exists.
   */
  state(): HaltState {
    let st: Stats | undefined;
    try {
      st = lstatSync(this.file, { throwIfNoEntry: false });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return { halted: true, file: this.file, problem: `the halt file ${this.file} cannot be checked (${code}); changes stay stopped until it can: fix the permissions of ${dirname(this.file)}` };
    }
    if (!st) return { halted: false };
    return { halted: true, file: this.file, ...this.describe(st) };
  }

  /** Stop every change; returns the new state. Written atomically (temp file, fsync, rename), mode 0644. */
  halt(reason: string | undefined, by: string): HaltedState {
    const record = { since: new Date().toISOString(), by, ...(reason?.trim() ? { reason: reason.trim() } : {}) };
    const dir = dirname(this.file);
    const tmp = join(dir, `.${basename(this.file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      // Directories made here are private like the audit key's; a shared location (/etc/pve-code-mcp)
      // is prepared by the operator with the modes it needs.
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const fd = openSync(tmp, 'wx', 0o644);
      try {
        // 0644 whatever the umask: servers of other accounts must be able to read why they stopped.
        fchmodSync(fd, 0o644);
        writeSync(fd, `${JSON.stringify(record)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
      syncDirectory(dir);
    } catch (err) {
      try {
        unlinkSync(tmp);
      } catch {
        // Never created, or already renamed.
      }
      throw new HaltError('halt-write', `cannot write the halt file ${this.file} (${describeFsError(err)})${fixFor(err, this.file, 'halt')}`);
    }
    return { halted: true, file: this.file, ...record };
  }

  /**
   * Lift the halt: the file (or the empty directory someone made there) is renamed away, `record`
   * runs (the CLI's audit entry), then it is removed. When `record` throws, the file is renamed
   * back, exactly as it was, and the error rethrown: a resume is never left unrecorded. Returns the
   * state before.
   */
  resume(record?: (ended: HaltedState) => void): HaltState {
    const before = this.state();
    if (!before.halted) return before;
    if (isDirectory(this.file) && readdirSync(this.file).length > 0) {
      throw new HaltError('halt-resume', `cannot remove ${this.file}: it is a directory with files in it; remove it by hand`);
    }
    const aside = join(dirname(this.file), `.${basename(this.file)}.${process.pid}.${randomBytes(6).toString('hex')}.resumed`);
    try {
      renameSync(this.file, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { halted: false };
      throw new HaltError('halt-resume', `cannot remove the halt file ${this.file} (${describeFsError(err)})${fixFor(err, this.file, 'resume')}`);
    }
    try {
      record?.(before);
    } catch (err) {
      renameSync(aside, this.file);
      throw err;
    }
    try {
      if (lstatSync(aside).isDirectory()) rmdirSync(aside);
      else unlinkSync(aside);
    } catch (err) {
      // Lifted all the same: the switch is the path, and nothing is there any more.
      throw new HaltError('halt-resume', `the halt is lifted, but ${aside} (the former switch) could not be removed (${describeFsError(err)}): remove it by hand`);
    }
    return before;
  }

  private describe(st: Stats): Omit<HaltedState, 'halted' | 'file'> {
    const since = st.mtime.toISOString();
    if (!st.isFile()) return { since };
    const text = readHead(this.file);
    if (text === undefined || text.trim() === '') return { since };
    try {
      const parsed = recordSchema.safeParse(JSON.parse(text));
      const { since: written, by, reason } = parsed.success ? parsed.data : {};
      if (written || by || reason) {
        return { since: written ? clean(written) : since, ...(by ? { by: clean(by) } : {}), ...(reason ? { reason: clean(reason) } : {}) };
      }
    } catch {
      // Not JSON: the operator wrote a reason by hand.
    }
    return { since, reason: clean(text) };
  }
}

/** The message a script gets for a change refused by the switch; undefined while not halted. */
export function haltRefusal(state: HaltState): string | undefined {
  if (!state.halted) return undefined;
  const scope = state.database !== undefined ? 'on every server sharing the database' : 'on this host';
  if (state.problem) return `all changes are stopped ${scope}: ${state.problem}; nothing was sent. Reads still work. Do not retry: tell the user.`;
  const who = state.by ? ` by ${state.by}` : '';
  const when = state.since ? ` since ${state.since}` : '';
  const why = state.reason ? `: ${state.reason}` : '';
  const where = state.database !== undefined ? `database ${state.database}` : `file ${state.file}`;
  const lift = state.database !== undefined ? `\`pve-code-mcp resume\` with the deployment's configuration` : `\`pve-code-mcp resume\` on the host`;
  return `all changes are halted ${scope}${when}${who}${why} (${where}); nothing was sent. Reads still work. Only an operator lifts the halt (${lift}): do not retry, tell the user.`;
}

function readHead(file: string): string | undefined {
  let fd: number;
  try {
    // O_NOFOLLOW|O_NONBLOCK: never follow a link swapped in after the lstat, never wait on a FIFO.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(MAX_READ);
    const n = readSync(fd, buf, 0, MAX_READ, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** One line, no control characters, bounded: the reason ends up in a script's error and the audit. */
export function clean(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > MAX_REASON ? `${line.slice(0, MAX_REASON)}…` : line;
}

function syncDirectory(dir: string): void {
  // The rename survives a crash only once the directory is on disk; some file systems refuse this.
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The file is in place; durability across a power cut is all that is lost.
  }
}

function describeFsError(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
}

function fixFor(err: unknown, file: string, command: 'halt' | 'resume'): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return file.startsWith(`${HOST_HALT_DIR}/`)
      ? `: the host-wide switch belongs to root; run \`sudo pve-code-mcp ${command}\``
      : `: ${dirname(file)} is not writable by ${currentOperator()}; run as its owner, or name another file with halt.file or PVE_HALT_FILE`;
  }
  return '';
}
