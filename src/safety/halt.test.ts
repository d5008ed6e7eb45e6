import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultHaltFile, HaltError, haltRefusal, HaltSwitch } from './halt.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'halt-'));
  file = join(dir, 'conf', 'halt');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof HaltError ? err.code : `not a HaltError: ${String(err)}`;
  }
  return undefined;
}

describe('HaltSwitch', () => {
  it('is not halted while the file does not exist, and its directory need not exist either', () => {
    expect(HaltSwitch.open(file).state()).toEqual({ halted: false });
  });

  it('halt writes { since, by, reason } as JSON, world-readable whatever the umask, and state reads it back', () => {
    const sw = HaltSwitch.open(file);
    const old = process.umask(0o077);
    let written;
    try {
      written = sw.halt('  VM 100 went down twice  ', 'alice');
    } finally {
      process.umask(old);
    }
    expect(written).toMatchObject({ halted: true, file, by: 'alice', reason: 'VM 100 went down twice' });
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ since: written.since, by: 'alice', reason: 'VM 100 went down twice' });
    expect(sw.state()).toEqual(written);
    // A second switch on the same path (another server) sees the same thing.
    expect(HaltSwitch.open(file).state()).toEqual(written);
  });

  it('writes atomically: a new file renamed over the old one, never rewritten in place, and no temporary file left', () => {
    const sw = HaltSwitch.open(file);
    sw.halt('first', 'alice');
    const before = statSync(file).ino;
    // A reader that opened the first file keeps reading it whole.
    const firstText = readFileSync(file, 'utf8');
    sw.halt('second', 'bob');
    expect(statSync(file).ino).not.toBe(before);
    expect(JSON.parse(firstText)).toMatchObject({ reason: 'first' });
    expect(sw.state()).toMatchObject({ by: 'bob', reason: 'second' });
    expect(readdirSync(join(dir, 'conf'))).toEqual(['halt']);
  });

  it('a failed write leaves no temporary file and throws halt-write', () => {
    // A non-empty directory at the path: the rename cannot replace it.
    mkdirSync(join(file, 'x'), { recursive: true });
    expect(codeOf(() => HaltSwitch.open(file).halt('x', 'alice'))).toBe('halt-write');
    expect(readdirSync(join(dir, 'conf'))).toEqual(['halt']);
  });

  it('an empty file made with touch halts; its modification time is the since', () => {
    mkdirSync(join(dir, 'conf'));
    writeFileSync(file, '');
    const when = new Date('2026-03-01T08:00:00.000Z');
    utimesSync(file, when, when);
    expect(HaltSwitch.open(file).state()).toEqual({ halted: true, file, since: when.toISOString() });
  });

  it('any other content halts too, and its first bytes, on one line, are the reason', () => {
    mkdirSync(join(dir, 'conf'));
    writeFileSync(file, 'storage migration\ntonight\u0007');
    expect(HaltSwitch.open(file).state()).toMatchObject({ halted: true, reason: 'storage migration tonight' });
    writeFileSync(file, JSON.stringify({ note: 'not our shape' }));
    expect(HaltSwitch.open(file).state()).toMatchObject({ halted: true, reason: '{"note":"not our shape"}' });
    writeFileSync(file, 'x'.repeat(10_000));
    const long = HaltSwitch.open(file).state();
    expect(long.halted && long.reason?.length).toBe(501);
  });

  it('a directory at the path halts as well', () => {
    mkdirSync(file, { recursive: true });
    expect(HaltSwitch.open(file).state()).toMatchObject({ halted: true, file });
  });

  it('fails closed: a path that cannot be checked counts as halted, with the problem', () => {
    // A regular file where the switch's directory should be: lstat fails with ENOTDIR.
    writeFileSync(join(dir, 'conf'), '');
    const state = HaltSwitch.open(file).state();
    expect(state).toMatchObject({ halted: true, file });
    expect(state.halted && state.problem).toContain('cannot be checked (ENOTDIR)');
    expect(haltRefusal(state)).toContain('nothing was sent');
  });

  it('resume removes the file and returns the state it ended; resuming again is a no-op', () => {
    const sw = HaltSwitch.open(file);
    const halted = sw.halt(undefined, 'alice');
    expect(halted).not.toHaveProperty('reason');
    expect(sw.resume()).toEqual(halted);
    expect(sw.state()).toEqual({ halted: false });
    expect(sw.resume()).toEqual({ halted: false });
  });

  it('resume runs its record step while the file is aside, and puts the file back unchanged when that step throws', () => {
    const sw = HaltSwitch.open(file);
    const halted = sw.halt('incident', 'alice');
    const ino = statSync(file).ino;
    const seen: unknown[] = [];
    expect(() =>
      sw.resume((ended) => {
        seen.push(ended, sw.state());
        throw new Error('audit unavailable');
      }),
    ).toThrow('audit unavailable');
    // During the step the switch was lifted; afterwards it is back, the same file.
    expect(seen).toEqual([halted, { halted: false }]);
    expect(sw.state()).toEqual(halted);
    expect(statSync(file).ino).toBe(ino);
    expect(readdirSync(join(dir, 'conf'))).toEqual(['halt']);
    expect(sw.resume(() => undefined)).toEqual(halted);
    expect(readdirSync(join(dir, 'conf'))).toEqual([]);
  });

  it('resume removes an empty directory someone made at the path, and refuses a full one', () => {
    mkdirSync(file, { recursive: true });
    const sw = HaltSwitch.open(file);
    expect(sw.resume()).toMatchObject({ halted: true });
    expect(sw.state()).toEqual({ halted: false });
    mkdirSync(join(file, 'inside'), { recursive: true });
    expect(codeOf(() => sw.resume())).toBe('halt-resume');
    expect(sw.state()).toMatchObject({ halted: true });
  });

  it('needs an absolute path', () => {
    expect(codeOf(() => HaltSwitch.open('relative/halt'))).toBe('halt-path');
  });
});

describe('haltRefusal', () => {
  it('says nothing while not halted', () => {
    expect(haltRefusal({ halted: false })).toBeUndefined();
  });

  it('says since when, by whom, why, which file, that nothing was sent and that only an operator lifts it', () => {
    const text = haltRefusal({ halted: true, file: '/etc/pve-code-mcp/halt', since: '2026-05-01T10:00:00.000Z', by: 'alice', reason: 'incident 42' });
    expect(text).toBe(
      'all changes are halted on this host since 2026-05-01T10:00:00.000Z by alice: incident 42 (file /etc/pve-code-mcp/halt); nothing was sent. Reads still work. ' +
        'Only an operator lifts the halt (`pve-code-mcp resume` on the host): do not retry, tell the user.',
    );
    expect(haltRefusal({ halted: true, file: '/x/halt' })).toMatch(/^all changes are halted on this host \(file \/x\/halt\); nothing was sent/);
  });
});

describe('defaultHaltFile', () => {
  it('PVE_HALT_FILE first, then the host directory when it exists, then the user config directory', () => {
    const host = join(dir, 'etc-pve-code-mcp');
    const env = { XDG_CONFIG_HOME: join(dir, 'xdg'), HOME: join(dir, 'home') };
    expect(defaultHaltFile(env, host)).toBe(join(dir, 'xdg', 'pve-code-mcp', 'halt'));
    mkdirSync(host);
    expect(defaultHaltFile(env, host)).toBe(join(host, 'halt'));
    expect(defaultHaltFile({ ...env, PVE_HALT_FILE: join(dir, 'mine') }, host)).toBe(join(dir, 'mine'));
    // A file, not a directory, at the host path does not make the switch host-wide.
    rmSync(host, { recursive: true });
    writeFileSync(host, '');
    expect(defaultHaltFile(env, host)).toBe(join(dir, 'xdg', 'pve-code-mcp', 'halt'));
  });
});
