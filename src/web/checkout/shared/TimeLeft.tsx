import { useEffect, useState } from 'react';

/** Whole seconds from `now` until `expiresAt` (ISO), never below 0; null when the date cannot be read. */
export function secondsLeft(expiresAt: string, now: number): number | null {
  const end = Date.parse(expiresAt);
  if (Number.isNaN(end)) return null;
  return Math.max(0, Math.ceil((end - now) / 1000));
}

/** 14:05, or 1:02:03 past an hour. */
export function formatSecondsLeft(total: number): string {
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(h > 0 ? 2 : 1, '0');
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

/**
 * Time left to pay an awaiting order (wallet and QR checkouts), ticking every second; at zero it says what
 * happens then (`atZero`, the checkout's own sentence). The server decides expiry; this only shows its clock.
 */
export function TimeLeft({ expiresAt, atZero }: { expiresAt: string; atZero: string }) {
  const [now, setNow] = useState(() => Date.now());
  const left = secondsLeft(expiresAt, now);
  const running = left !== null && left > 0;
  useEffect(() => {
    if (!running) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [running]);
  if (left === null) return null;
  if (left === 0)
    return (
      <p className="time-left time-up" role="status" data-testid="time-left" data-seconds="0">
        {atZero}
      </p>
    );
  return (
    <p className="time-left" data-testid="time-left" data-seconds={left}>
      Time left to pay:{' '}
      <time role="timer" dateTime={`PT${left}S`}>
        {formatSecondsLeft(left)}
      </time>
    </p>
  );
}
