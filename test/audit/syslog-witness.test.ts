/**
 * The syslog witness: records sent as RFC 5424 messages over UDP to a local receiver (standing in
 * for the syslog daemon), exported to a file as an operator would, and checked by verify.
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/audit/log.js';
import { verifyAudit } from '../../src/audit/verify.js';

const KEY = 'syslog-witness-key-0123456789abcdef';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-syslog-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('syslog witness', () => {
  it('sends the chain end as RFC 5424 messages; and an export of them verifies', async () => {
    const received: string[] = [];
    const server = createSocket('udp4');
    server.on('message', (m) => received.push(m.toString('utf8')));
    await new Promise<void>((r) => server.bind(0, '127.0.0.1', () => r()));
    const port = server.address().port;
    const file = join(dir, 'audit', 'audit.jsonl');
    try {
      const log = AuditLog.open({ file, hmacKey: KEY, witness: { syslog: { host: '127.0.0.1', port } } });
      for (let i = 0; i < 5; i++) log.append('call', { runId: `r${i}`, method: 'GET', path: '/version', status: 'ok', durationMs: 1 });
      log.close();
      for (let i = 0; i < 50 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      server.close();
    }
    expect(received.length).toBeGreaterThanOrEqual(2);
    expect(received[0]).toMatch(/^<110>1 \S+ \S+ pve-code-mcp \d+ audit - \{"pve-code-mcp-witness":1,/);
    const exported = join(dir, 'syslog-export.txt');
    writeFileSync(exported, received.map((m) => `Dec  1 10:00:00 host ${m}`).join('\n') + '\n');
    expect(verifyAudit(file, { hmacKey: KEY, witness: exported }).problems).toEqual([]);
  });
});
