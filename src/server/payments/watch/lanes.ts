/**
 * A lane: a bounded share of the RPC budget for one kind of work (hints, priority checks), so that kind can slow
 * only itself. A token bucket of `perWindow` requests per `windowMs`; callers wait in arrival order, up to their
 * deadline (then LaneBusyError). The process-wide budget (budget.ts) still applies on top.
 */
export class LaneBusyError extends Error {
  override name = 'LaneBusyError';
}

export class Lane {
  private sent: number[] = [];
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly perWindow: number,
    readonly windowMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Requests this lane may still send now. */
  available(): number {
    this.prune();
    return Math.max(0, this.perWindow - this.sent.length);
  }

  /** Takes `n` tokens at once if they are free now (never waits). */
  tryTake(n = 1): boolean {
    if (this.available() < n) return false;
    const at = this.now();
    for (let i = 0; i < n; i++) this.sent.push(at);
    return true;
  }

  /** Waits (in arrival order) for one token; throws LaneBusyError when none frees before `deadline` (epoch ms). */
  acquire(deadline = Infinity): Promise<void> {
    const turn = this.chain.then(async () => {
      for (;;) {
        if (this.tryTake()) return;
        const oldest = this.sent[0] ?? this.now();
        const wait = Math.max(1, oldest + this.windowMs + 1 - this.now());
        if (this.now() + wait > deadline)
          throw new LaneBusyError(`${this.name}: its share of the RPC budget is used up`);
        await new Promise<void>((resolve) => setTimeout(resolve, wait).unref?.());
      }
    });
    this.chain = turn.catch(() => undefined);
    return turn;
  }

  private prune(): void {
    const from = this.now() - this.windowMs;
    let i = 0;
    while (i < this.sent.length && (this.sent[i] ?? 0) <= from) i++;
    if (i > 0) this.sent = this.sent.slice(i);
  }
}
