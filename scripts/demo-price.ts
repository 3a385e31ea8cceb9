/**
 * `npm run demo:price -- <pump|dump|thin|split|normal> [seconds]`: pushes the demo price market of a running
 * `npm start` (demo mode) and prints what the store now quotes. pump: DexScreener shows 3× for 2 minutes (or
 * `seconds`), which the quote ignores; dump: the price halves, which the quote follows at once; thin: the pool's
 * liquidity drops below the floor and quotes are refused; split: the second source says 15 % more, quotes are
 * refused and the sellers get one e-mail (see /dev/mail); normal: back to the gently moving price. The same
 * control, with buttons: http://127.0.0.1:3000/dev/price. PORT picks the store (default 3000).
 */
import { formatDateTime } from '../src/core/zone-dates';

const [mode, seconds] = process.argv.slice(2);
const modes = ['pump', 'dump', 'thin', 'split', 'normal'];
if (!mode || !modes.includes(mode) || (seconds !== undefined && !/^\d+$/.test(seconds))) {
  console.error(`usage: npm run demo:price -- <${modes.join('|')}> [seconds]`);
  process.exit(2);
}
const base = `http://127.0.0.1:${process.env.PORT ?? 3000}`;
const url = `${base}/dev/price/${mode}${seconds ? `?seconds=${seconds}` : ''}`;
let res: Response;
try {
  res = await fetch(url, { method: 'POST' });
} catch {
  console.error(`No store at ${base}: start it with npm start (demo mode).`);
  process.exit(1);
}
if (res.status === 404) {
  console.error(`${base} has no demo price control: it runs in demo mode only.`);
  process.exit(1);
}
const body = (await res.json()) as Record<string, unknown>;
if (!res.ok) {
  console.error(String(body.message ?? res.status));
  process.exit(1);
}
const line = (k: string, v: unknown) => console.log(`${k.padEnd(34)}${v === null ? '—' : String(v)}`);
line('market', `${String(body.mode)}${body.until ? ` until ${formatDateTime(String(body.until))}` : ''}`);
line('DexScreener spot (USD)', body.spotUsd);
line('GeckoTerminal (USD)', body.secondUsd);
line('reference price quotes use (USD)', body.referenceUsd);
line('liquidity (USD)', body.liquidityUsd);
line('quote for a $325 piece ($CLAIM)', body.quote325);
line('quotes refused', body.refusal ?? 'no');
console.log(`Watch it move: ${base}/dev/price`);

export {};
