import { useEffect, useRef, useState } from 'react';
import type { DropLineResponse } from '../../core/api';
import type { Product } from '../../core/catalog';
import { AIRDROP_TIME_ZONE, remaining } from '../../core/countdown';
import { dropRules, pollMs } from '../../core/drop';
import { reservedText, SOLD_OUT_TEXT } from '../../core/stock';
import { formatLocalTime } from '../lib/time';
import { formatWeekdayDateTime } from '../../core/zone-dates';

/**
 * A drop's state on its product page (docs/decisions/drops.md): a countdown to the start (in the buyer's zone and
 * in PST, as the Giveaways page counts down, against the server's clock), the buyer's place in the line, and the
 * words when nothing is free ("Reserved: may come back in N minutes", "Sold out"). The page joins the line on load
 * (POST /api/drops/:id/line) and asks again at the line's own pace; `onTurn` says whether Buy Now may show.
 */
export function DropPanel({ product, onTurn }: { product: Product; onTurn: (through: boolean) => void }) {
  const rules = dropRules(product);
  const [state, setState] = useState<DropLineResponse | null>(null);
  const [failed, setFailed] = useState(false);
  const [now, setNow] = useState<number | null>(null);
  /** Server clock minus this device's, from the last answer. */
  const offset = useRef(0);
  const onTurnRef = useRef(onTurn);
  onTurnRef.current = onTurn;

  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const ask = async () => {
      let next = 5_000;
      try {
        const res = await fetch(`/api/drops/${encodeURIComponent(product.id)}/line`, {
          method: 'POST',
          headers: { accept: 'application/json' },
          cache: 'no-store',
        });
        if (!res.ok) throw new Error(String(res.status));
        const body = (await res.json()) as DropLineResponse;
        if (stopped) return;
        offset.current = Date.parse(body.serverTime) - Date.now();
        setState(body);
        setFailed(false);
        onTurnRef.current(body.place.state === 'through');
        if (body.place.state === 'before_start') {
          // Ask again right at the start (by the server's clock), or in 30 s when it is far off.
          const toStart = Date.parse(body.startsAt) - Date.parse(body.serverTime);
          next = Math.min(30_000, Math.max(250, toStart + 250));
        } else if (body.place.state === 'waiting') next = pollMs(body.place.ahead);
        else if (body.place.state === 'through') next = 10_000;
        else return; // had their turn: nothing more to ask
      } catch {
        if (!stopped) setFailed(true);
      }
      if (!stopped) timer = window.setTimeout(() => void ask(), next);
    };
    void ask();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [product.id]);

  useEffect(() => {
    const tick = () => setNow(Date.now() + offset.current);
    tick();
    const t = window.setInterval(tick, 1000);
    return () => window.clearInterval(t);
  }, []);

  if (!rules) return null;
  const start = rules.startsAt;
  const left = now === null ? null : remaining(new Date(now), start);
  const before = left === null || left.totalMs > 0;
  const two = (n: number) => String(n).padStart(2, '0');
  // The store's one date format (web.md), led by the day: "Monday, 1 Dec 2026, 16:00 CET".
  const inZone = (timeZone?: string) => formatWeekdayDateTime(start.toISOString(), timeZone);

  const perBuyerText = `${rules.perBuyer === 1 ? 'one piece' : `up to ${rules.perBuyer} pieces`} per buyer`;
  let words: string | null = null;
  if (state && !before) {
    const p = state.place;
    if (state.available <= 0 && p.state !== 'through')
      words =
        state.held > 0 && state.heldUntil
          ? `${reservedText(state.heldUntil, now ?? Date.now())}.`
          : `${SOLD_OUT_TEXT}.`;
    // Sold out with nothing held: no piece can come back by itself, so a place in line would promise nothing.
    if (p.state === 'waiting' && words !== `${SOLD_OUT_TEXT}.`)
      words = `${words ? `${words} ` : ''}You are in line: ${p.ahead} ${p.ahead === 1 ? 'buyer is' : 'buyers are'} ahead of you. Keep this page open: you are let through as pieces are reserved or come back.`;
    else if (p.state === 'through')
      words = `It is your turn: click Buy Now before ${formatLocalTime(p.until)}.`;
    // Their turn was on another piece of the vendor's batch: say so, rather than queue them for another.
    else if (p.state === 'done' && p.batch)
      words = p.batch.hasPiece
        ? `You already have your ${rules.perBuyer === 1 ? 'piece' : 'pieces'} of this drop (${p.batch.name}), reserved or bought: ${perBuyerText}.`
        : `You have had your turn in this drop (${p.batch.name}): ${perBuyerText}, and each buyer is let through once.`;
    else if (p.state === 'done') words = words ?? 'You have had your turn in this drop.';
  }

  return (
    <section className="card drop" aria-labelledby="drop-title" data-testid="drop">
      <h2 id="drop-title">Drop</h2>
      {before ? (
        <>
          <p>
            On sale <time dateTime={start.toISOString()}>{inZone()}</time> ({inZone(AIRDROP_TIME_ZONE)}).
          </p>
          <p className="countdown-units" aria-hidden="true" data-testid="drop-countdown">
            {left
              ? `${left.days > 0 ? `${left.days}d ` : ''}${two(left.hours)}:${two(left.minutes)}:${two(left.seconds)}`
              : '--:--:--'}
          </p>
          {left && (
            <p className="visually-hidden">
              Time left: {left.days} days, {left.hours} hours, {left.minutes} minutes.
            </p>
          )}
          <p role="status">
            {state?.place.state === 'before_start'
              ? `You are in line with ${state.place.inLine - 1} other ${state.place.inLine === 2 ? 'buyer' : 'buyers'}. At the start everyone here before it is put in a random order, so there is no need to hurry or reload.`
              : null}
          </p>
        </>
      ) : (
        <p role="status" data-testid="drop-state">
          {words}
        </p>
      )}
      {failed && (
        <p className="error">Your place in line could not be checked just now; this page tries again.</p>
      )}
      <p className="muted">
        {rules.batch === undefined
          ? `One ${rules.perBuyer === 1 ? 'piece' : `of up to ${rules.perBuyer} pieces`} per buyer`
          : `This piece is part of a drop (${rules.batch}): ${perBuyerText} across all of its pieces`}
        ; a piece is held {rules.holdMs / 60_000} {rules.holdMs === 60_000 ? 'minute' : 'minutes'} for
        payment.
      </p>
    </section>
  );
}
