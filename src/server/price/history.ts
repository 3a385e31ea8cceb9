/** Price history for the sparkline: one point per successful refresh, bounded in memory. */

export interface PricePoint {
  t: Date;
  priceUsd: string;
}

/**
 * Where history may be persisted (the store owner can provide a database one). `since` returns points with
 * t >= date, oldest first.
 */
export interface PriceHistoryStore {
  append(point: PricePoint): void | Promise<void>;
  since(date: Date): PricePoint[] | Promise<PricePoint[]>;
}

/** Fixed-capacity ring buffer, oldest first on read. */
export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be a positive integer');
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(item: T): void {
    const end = (this.start + this.count) % this.capacity;
    this.items[end] = item;
    if (this.count < this.capacity) this.count++;
    else this.start = (this.start + 1) % this.capacity;
  }

  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.items[(this.start + i) % this.capacity] as T);
    return out;
  }

  last(): T | undefined {
    return this.count ? this.items[(this.start + this.count - 1) % this.capacity] : undefined;
  }
}

/** 24 h at one point per 10 s, plus slack. */
export const HISTORY_CAPACITY = 8_640 + 360;

export function createMemoryPriceHistoryStore(capacity = HISTORY_CAPACITY): PriceHistoryStore {
  const ring = new RingBuffer<PricePoint>(capacity);
  return {
    append(point) {
      ring.push({ t: new Date(point.t.getTime()), priceUsd: point.priceUsd });
    },
    since(date) {
      const from = date.getTime();
      return ring.toArray().filter((p) => p.t.getTime() >= from);
    },
  };
}

/** At most this many points go to the page's chart (one per 5 minutes over 24 h). */
export const CHART_MAX_POINTS = 288;

/**
 * The chart's points: all of them up to `max`; beyond, the last point of each equal time bucket over their span
 * (the closing price of each bucket), and always the newest point. Oldest first, like the input.
 */
export function downsample(points: readonly PricePoint[], max = CHART_MAX_POINTS): PricePoint[] {
  if (points.length <= max) return [...points];
  const first = (points[0] as PricePoint).t.getTime();
  const last = (points[points.length - 1] as PricePoint).t.getTime();
  const width = Math.max(1, Math.ceil((last - first + 1) / max));
  const out: PricePoint[] = [];
  let bucket = -1;
  for (const p of points) {
    const b = Math.floor((p.t.getTime() - first) / width);
    if (b === bucket) out[out.length - 1] = p;
    else {
      out.push(p);
      bucket = b;
    }
  }
  return out;
}
