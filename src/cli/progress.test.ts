import { describe, expect, it } from 'vitest';
import { BatchProgress } from './progress.js';

const upid = (vmid: number) => `UPID:pve1:0000C530:0001A2F3:6650B1C2:qmsnapshot:${vmid}:root@pam:`;

function drive(tty: boolean): string {
  let out = '';
  let now = 0;
  const p = new BatchProgress({ raw: (t) => (out += t), tty }, () => now);
  p.event({ cluster: 'c', upid: upid(101), status: 'started', lines: [] });
  p.event({ cluster: 'c', upid: upid(102), status: 'started', lines: [] });
  now = 3_000;
  p.event({ cluster: 'c', upid: upid(101), status: 'running', lines: ['creating snapshot'] });
  p.event({ cluster: 'c', upid: upid(101), status: 'stopped', lines: ['TASK OK'] });
  now = 65_000;
  p.event({ cluster: 'c', upid: upid(102), status: 'stopped', lines: [] });
  p.finish();
  return out;
}

describe('BatchProgress', () => {
  it('writes a line only when the counts change when not a terminal', () => {
    expect(drive(false).split('\n').filter(Boolean)).toEqual([
      '[00:00] tasks 0 done of 1 started · qmsnapshot 101 on pve1 started',
      '[00:00] tasks 0 done of 2 started · qmsnapshot 102 on pve1 started',
      '[00:03] tasks 1 done of 2 started · qmsnapshot 101 on pve1 stopped — TASK OK',
      '[01:05] tasks 2 done of 2 started · qmsnapshot 102 on pve1 stopped',
    ]);
  });

  it('redraws one line in a terminal, and ends it', () => {
    const out = drive(true);
    expect(out.split('\r\x1b[K').filter(Boolean)).toHaveLength(5);
    expect(out.endsWith('[01:05] tasks 2 done of 2 started · qmsnapshot 102 on pve1 stopped\n')).toBe(true);
    expect(out.split('\n')).toHaveLength(2);
  });
});
