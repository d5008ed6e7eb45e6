/**
 * A child process that failed to start is not forked again at once: for a moment every caller
 * gets the failure's reason instead (a missing toolchain or a broken build fails the same way on
 * the next fork, and forking on each request would spend the machine on it). One place for the
 * rule, so the caller that waits for a start and the one that only anticipates it agree.
 */
export class StartBackoff {
  private failure: { at: number; reason: string } | undefined;

  constructor(private readonly ms: number) {}

  started(): void {
    this.failure = undefined;
  }

  failed(reason: string): void {
    this.failure = { at: performance.now(), reason };
  }

  /** Why a start is held back now, or undefined when one may be tried. */
  holding(): string | undefined {
    const f = this.failure;
    return f && performance.now() - f.at < this.ms ? f.reason : undefined;
  }
}
