/**
 * A batch's overall progress on stderr for `pve-code-mcp run`: tasks done of started, the task
 * last heard of, and the time since the run began. In a terminal one line is redrawn in place;
 * otherwise (piped, a log file) a plain line is written each time the counts change, so a log
 * shows the batch advance without a line per status poll.
 */
import type { TaskProgressEvent } from '../bridge/runtime.js';
import { parseUpid } from '../pve/upid.js';

export interface ProgressSink {
  /** Writes as is (the terminal form redraws with `\r`). */
  raw(text: string): void;
  tty: boolean;
}

export class BatchProgress {
  private readonly started = new Set<string>();
  private readonly done = new Set<string>();
  private current = '';
  private drawn = false;
  private lastCounts = '';

  constructor(
    private readonly sink: ProgressSink,
    private readonly now: () => number = () => performance.now(),
    private readonly startedAt = now(),
  ) {}

  event(e: TaskProgressEvent): void {
    this.started.add(e.upid);
    if (e.status === 'stopped') this.done.add(e.upid);
    const last = e.lines.length > 0 ? ` — ${e.lines[e.lines.length - 1]}` : '';
    this.current = `${taskName(e.upid)} ${e.status === 'started' ? 'started' : e.status}${last}`;
    const counts = `${this.done.size}/${this.started.size}`;
    if (this.sink.tty) {
      this.sink.raw(`\r\x1b[K${this.line()}`);
      this.drawn = true;
    } else if (counts !== this.lastCounts) {
      this.sink.raw(`${this.line()}\n`);
    }
    this.lastCounts = counts;
  }

  /** Ends the redrawn line so what follows starts on its own. */
  finish(): void {
    if (this.drawn) this.sink.raw('\n');
    this.drawn = false;
  }

  line(): string {
    return `[${elapsed(this.now() - this.startedAt)}] tasks ${this.done.size} done of ${this.started.size} started · ${this.current}`.slice(0, 200);
  }
}

/** `qmsnapshot 101 on pve1`: what a UPID says, shorter than the UPID. */
function taskName(upid: string): string {
  const parts = parseUpid(upid);
  return parts ? `${parts.type}${parts.id ? ` ${parts.id}` : ''} on ${parts.node}` : upid;
}

function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const mm = String(Math.floor(s / 60)).padStart(2, '0');
  return `${mm}:${String(s % 60).padStart(2, '0')}`;
}
