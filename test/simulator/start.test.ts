/**
 * Starting the simulator: given certificates, option errors, schema errors, busy ports.
 */
import { X509Certificate } from 'node:crypto';
import { generate } from 'selfsigned';
import { describe, expect, it } from 'vitest';
import { SimulatorStartError, startSimulator } from '../../src/simulator/index.js';
import { call, startTestSimulator } from './helpers.js';

describe('startSimulator', () => {
  it('serves a given certificate and reports its fingerprint; refuses a busy port clearly', async () => {
    const pems = await generate([{ name: 'commonName', value: 'pve-test' }], { keySize: 2048, algorithm: 'sha256' });
    const sim = await startTestSimulator({ cert: { cert: pems.cert, key: pems.private } });
    try {
      expect(sim.fingerprint).toBe(new X509Certificate(pems.cert).fingerprint256);
      expect((await call(sim, '/api2/json/version')).status).toBe(200);
      const busy = startSimulator({ port: sim.port, authFailureDelayMs: 0 });
      await expect(busy).rejects.toThrow(SimulatorStartError);
      await expect(busy).rejects.toThrow(/port is taken/);
    } finally {
      await sim.close();
    }
  });

  it('rejects bad options, presets, schema files and fault specs with SimulatorStartError', async () => {
    await expect(startSimulator({ port: -1 })).rejects.toThrow(/Invalid simulator options/);
    await expect(startSimulator({ preset: 'nope', authFailureDelayMs: 0 })).rejects.toThrow(SimulatorStartError);
    await expect(startSimulator({ schemaFile: '/nonexistent/apidoc.js', authFailureDelayMs: 0 })).rejects.toThrow(/Cannot load the simulator's schema/);
    await expect(startSimulator({ faults: { offlineNodes: { nonode: 'refused' } }, authFailureDelayMs: 0 })).rejects.toThrow(/Invalid start-time faults/);
  });

  it('applies start-time faults', async () => {
    const sim = await startTestSimulator({ faults: { offlineNodes: { pve3: 'refused' }, rules: [{ path: '/version', errorRate: 1, errorStatus: 500 }] } });
    try {
      expect((await call(sim, '/api2/json/nodes/pve3/qemu')).status).toBe(595);
      expect((await call(sim, '/api2/json/version')).status).toBe(500);
    } finally {
      await sim.close();
    }
  });
});
