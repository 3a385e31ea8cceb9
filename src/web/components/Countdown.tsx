import { useEffect, useState } from 'react';
import { AIRDROP_TIME_ZONE, countdownTick, type Remaining } from '../../core/countdown';
import { formatWeekdayDateTime } from '../../core/zone-dates';

const UNITS: { key: keyof Omit<Remaining, 'totalMs'>; label: string }[] = [
  { key: 'days', label: 'Days' },
  { key: 'hours', label: 'Hours' },
  { key: 'minutes', label: 'Minutes' },
  { key: 'seconds', label: 'Seconds' },
];

/** Countdown to the next Sunday 00:00 America/Los_Angeles, ticking every second, recomputing at zero. */
export function Countdown() {
  // The first frame does not depend on the clock (it is prerendered at build time and hydrated): the time is
  // read in the effect, which then ticks every second.
  const [state, setState] = useState<ReturnType<typeof countdownTick> | null>(null);
  useEffect(() => {
    setState(countdownTick(new Date(), undefined, AIRDROP_TIME_ZONE));
    const timer = window.setInterval(
      () => setState((s) => countdownTick(new Date(), s?.target, AIRDROP_TIME_ZONE)),
      1000,
    );
    return () => window.clearInterval(timer);
  }, []);
  // The store's one date format (web.md), led by the day: "Monday, 1 Dec 2026, 09:00 CET".
  const local = state ? formatWeekdayDateTime(state.target.toISOString()) : '…';
  const spoken = state
    ? `${state.left.days} days, ${state.left.hours} hours, ${state.left.minutes} minutes`
    : 'loading';
  return (
    <section className="card countdown" aria-labelledby="countdown-title">
      <h2 id="countdown-title">NEXT $CLAIM AIRDROP &amp; BURN</h2>
      <p className="countdown-when">Every Sunday at Midnight (PST)</p>
      <div className="countdown-units" data-testid="countdown" aria-hidden="true">
        {UNITS.map((u) => (
          <div key={u.key} className="countdown-unit">
            <span className="countdown-value" data-unit={u.key}>
              {state ? String(state.left[u.key]).padStart(2, '0') : '--'}
            </span>
            <span className="countdown-label">{u.label}</span>
          </div>
        ))}
      </div>
      <p className="visually-hidden">Time left: {spoken}.</p>
      <p className="muted">
        In your time zone: <time dateTime={state?.target.toISOString()}>{local}</time>
      </p>
      <p className="countdown-note">ALL HOLDERS GET MORE $CLAIM BASED ON HOLDINGS</p>
    </section>
  );
}
