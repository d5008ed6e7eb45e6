import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveConfigError, PveTlsError, TlsPinMismatchError } from '../../src/client/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { caught, clientFor, memoryLogger, startSim, tempDir } from './sim.js';

let sim: RunningSimulator;
let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  sim = await startSim({ preset: 'small' });
  dir = await tempDir('pve-client-tls-');
});
afterAll(async () => {
  await sim.close();
  await dir.remove();
});

describe('TLS trust', () => {
  it('accepts the pinned fingerprint in GUI form, lower case, or without colons', async () => {
    for (const fingerprint of [sim.fingerprint, sim.fingerprint.toLowerCase(), sim.fingerprint.replace(/:/g, '')]) {
      const client = clientFor(sim, { tls: { fingerprint } });
      try {
        expect(await client.version()).toHaveProperty('version');
      } finally {
        await client.close();
      }
    }
  });

  it('refuses a different certificate before sending anything, naming both fingerprints', async () => {
    const pinned = 'AB:'.repeat(31) + 'CD';
    const client = clientFor(sim, { tls: { fingerprint: pinned }, retry: { attempts: 3 } });
    const before = sim.counters.snapshot().total;
    try {
      const err = await caught(() => client.request('GET', '/nodes'));
      expect(err).toBeInstanceOf(TlsPinMismatchError);
      const mismatch = err as TlsPinMismatchError;
      expect(mismatch.expectedFingerprint).toBe(pinned);
      expect(mismatch.actualFingerprint).toBe(sim.fingerprint);
      expect(err.message).toContain(pinned);
      expect(err.message).toContain(sim.fingerprint);
      expect(sim.counters.snapshot().total).toBe(before);
    } finally {
      await client.close();
    }
  });

  it('trusts the certificate given as caFile', async () => {
    const caFile = join(dir.path, 'sim-ca.pem');
    await writeFile(caFile, sim.certificate);
    const client = clientFor(sim, { tls: { caFile } });
    try {
      expect(await client.version()).toHaveProperty('version');
    } finally {
      await client.close();
    }
  });

  it('verifies by default and reports the untrusted certificate with its fingerprint', async () => {
    const client = clientFor(sim, { tls: {} });
    try {
      const err = await caught(() => client.request('GET', '/version'));
      expect(err).toBeInstanceOf(PveTlsError);
      expect(err).not.toBeInstanceOf(TlsPinMismatchError);
      expect((err as PveTlsError).serverFingerprint).toBe(sim.fingerprint);
      expect((err as PveTlsError).reason).toMatch(/SELF_SIGNED/);
      expect(err.message).toMatch(/fingerprint/);
    } finally {
      await client.close();
    }
  });

  it('connects with insecure: true and warns loudly through the given logger', async () => {
    const logger = memoryLogger();
    const client = clientFor(sim, { tls: { insecure: true }, logger });
    try {
      expect(await client.version()).toHaveProperty('version');
      expect(logger.warnings[0]).toMatch(/DISABLED/);
      expect(logger.warnings.some((w) => w.includes(sim.fingerprint))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('rejects an unreadable caFile and a malformed pin at construction', () => {
    expect(() => clientFor(sim, { tls: { caFile: join(dir.path, 'missing.pem') } })).toThrow(PveConfigError);
    expect(() => clientFor(sim, { tls: { fingerprint: 'AB:CD' } })).toThrow(/SHA-256/);
  });
});
