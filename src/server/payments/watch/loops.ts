/**
 * Background-loop helpers shared by the watcher's parts: self-rescheduling loops that never overlap, sleeps that
 * stop() wakes, tracked tasks (stop waits for them), guarded calls whose errors become events, and a semaphore.
 */

/** At most `limit` calls of `run` at once; the rest wait in order. */
export class Semaphore {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

/** Timers, sleepers and tasks of one watcher: loops run while `active()` says so; `halt` clears them all. */
export class Background {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly tasks = new Set<Promise<unknown>>();
  private readonly sleepers = new Set<() => void>();

  constructor(private readonly onError: (where: string, error: unknown) => void) {}

  /** A self-rescheduling loop: the next run starts `ms()` after the previous one finished (never overlapping). */
  loop(where: string, active: () => boolean, ms: () => number, fn: () => Promise<void>): void {
    const tick = () => {
      if (!active()) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        const run = this.guard(where, fn).then(tick);
        this.track(run);
      }, ms());
      this.timers.add(t);
      t.unref?.();
    };
    tick();
  }

  /** Sleeps `ms`; `wakeAll` ends every sleep at once. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(t);
        this.timers.delete(t);
        this.sleepers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      this.timers.add(t);
      this.sleepers.add(wake);
      t.unref?.();
    });
  }

  /** Keeps `p` until it settles (drain waits for it); a rejection becomes an error event. */
  track(p: Promise<unknown>): void {
    const tracked = p.catch((error: unknown) => this.onError('task', error));
    this.tasks.add(tracked);
    void tracked.finally(() => this.tasks.delete(tracked));
  }

  /** Runs `fn`; an error becomes an event and the result undefined. */
  async guard<T>(where: string, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (error) {
      this.onError(where, error);
      return undefined;
    }
  }

  /** Cancels every scheduled loop run (and, with `wake`, ends every sleep). */
  clearTimers(wake = false): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (wake) {
      for (const w of this.sleepers) w();
      this.sleepers.clear();
    }
  }

  /** Waits until every tracked task has settled (tasks started meanwhile included). */
  async drain(): Promise<void> {
    while (this.tasks.size) await Promise.allSettled([...this.tasks]);
  }
}

/**
 * Sleeps `ms` in steps of at most `stepMs`, ending early once `still()` is false (the watcher stopped). True when
 * the whole time was slept.
 */
export async function sleepWhile(ms: number, still: () => boolean, stepMs = 250): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (!still()) return false;
    const left = until - Date.now();
    if (left <= 0) return true;
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(left, stepMs)).unref?.());
  }
}

/** A bounded set in insertion order: the oldest entry goes when it is full. */
export class BoundedSet {
  private readonly items = new Map<string, true>();
  constructor(private readonly max: number) {}
  has(key: string): boolean {
    return this.items.has(key);
  }
  add(key: string): void {
    this.items.set(key, true);
    if (this.items.size > this.max) {
      const oldest = this.items.keys().next().value;
      if (oldest !== undefined) this.items.delete(oldest);
    }
  }
}
