import type { FastifyPluginAsync } from 'fastify';
import { formatBaseUnits, formatCents, tokenBaseUnitsForCents } from '../../core/money';
import { formatDateTime } from '../../core/zone-dates';
import { escapeHtml } from '../mail/templates';
import { DEMO_MARKET_MODES, type DemoMarket, type DemoMarketMode } from '../price/demo-feed';
import type { PriceService } from '../price/service';

/**
 * Demo mode's price control: GET /dev/price shows the demo market (its mode), DexScreener's spot, GeckoTerminal's
 * price, the reference price quotes use, the $CLAIM a $325 piece is quoted at, and why quotes are refused if they
 * are, as of the time it names (a Refresh link reads it again: no timed reload, which a screen reader or a slow
 * reader cannot stop; axe's meta-refresh rule). POST /dev/price/:mode (pump, dump, thin, split, normal;
 * `?seconds=N` ends it after N seconds) pushes the market and refreshes the price at once (JSON back, or a redirect to the page for a form).
 * `npm run demo:price -- pump` calls it from a shell. Register in demo mode only.
 */

export interface DemoPriceControlOptions {
  market: DemoMarket;
  price: PriceService;
  now?: () => number;
}

/** The page's own policy: its inline style and its forms, nothing else (the app's CSP hashes the app's styles). */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const SAMPLE_CENTS = 32_500; // the $325 glass piece
const HELP: Record<DemoMarketMode, string> = {
  pump: 'Pump: DexScreener shows 3× the price for 2 minutes. The quote ignores it (the reference is the median).',
  dump: 'Dump: the price halves until Normal. The quote follows at the next refresh (10 s).',
  thin: 'Thin pool: liquidity $1,850, below the $5,000 floor. Quotes are refused.',
  split:
    'Split: GeckoTerminal says 15 % more than DexScreener. Quotes are refused; the sellers get one e-mail.',
  normal: 'Normal: the gently moving demo price.',
};

function snapshot(opts: DemoPriceControlOptions, nowMs: number) {
  const state = opts.market.state(nowMs);
  const cur = opts.price.current();
  let quoted: string | null = null;
  if (cur && !cur.refusal) {
    try {
      quoted = formatBaseUnits(tokenBaseUnitsForCents(SAMPLE_CENTS, cur.priceUsd));
    } catch {
      quoted = null;
    }
  }
  return {
    mode: state.mode,
    ...(state.until !== undefined ? { until: new Date(state.until).toISOString() } : {}),
    spotUsd: cur?.spotUsd ?? null,
    secondUsd: cur?.secondUsd ?? null,
    referenceUsd: cur?.priceUsd ?? null,
    liquidityUsd: cur?.liquidityUsd ?? null,
    spreadBps: cur?.spreadBps ?? null,
    refusal: cur?.refusal?.message ?? null,
    quote325: quoted,
  };
}

export const demoPriceControlPlugin: FastifyPluginAsync<DemoPriceControlOptions> = async (app, opts) => {
  const now = opts.now ?? Date.now;
  // A form's empty body: nothing to read.
  app.addContentTypeParser('application/x-www-form-urlencoded', { bodyLimit: 1024 }, (_req, _body, done) =>
    done(null, {}),
  );

  app.get('/dev/price', (_req, reply) => {
    const s = snapshot(opts, now());
    const row = (k: string, v: string | null) =>
      `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v ?? '—')}</td></tr>`;
    const buttons = DEMO_MARKET_MODES.map(
      (m) =>
        `<li><form method="post" action="/dev/price/${m}"><button type="submit">${escapeHtml(
          m[0]!.toUpperCase() + m.slice(1),
        )}</button> ${escapeHtml(HELP[m])}</form></li>`,
    ).join('');
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Demo price control</title><style>body{font-family:system-ui,sans-serif;margin:1rem;max-width:60rem}th,td{padding:.3rem .8rem .3rem 0;text-align:left;vertical-align:top}button,a{min-height:44px;min-width:44px}a{display:inline-flex;align-items:center}li{margin:.5rem 0}</style></head><body><main><h1>Demo price control</h1>
<p>Push the demo market and watch the quote: a spike is ignored, a drop is followed at once, a thin pool or
disagreeing sources refuse quotes.</p>
<p>As of ${escapeHtml(formatDateTime(new Date(now()).toISOString()))} · <a href="/dev/price">Refresh</a></p>
<table>${[
      row('Market', s.mode + (s.until ? ` (until ${formatDateTime(s.until)})` : '')),
      row('DexScreener spot (USD)', s.spotUsd),
      row('GeckoTerminal (USD)', s.secondUsd),
      row('Reference price quotes use (USD)', s.referenceUsd),
      row('Liquidity (USD)', s.liquidityUsd),
      row('Sources apart', s.spreadBps === null ? null : `${(s.spreadBps / 100).toFixed(2)} %`),
      row(
        `Quote for a $${formatCents(SAMPLE_CENTS)} piece`,
        s.quote325 === null ? null : `${s.quote325} $CLAIM`,
      ),
      row('Quotes refused', s.refusal ?? 'no'),
    ].join('')}</table>
<ul>${buttons}</ul><p><a href="/dev/mail">Mail</a> · <a href="/">Store</a></p></main></body></html>`;
    return reply
      .header('cache-control', 'no-store')
      .header('content-security-policy', PAGE_CSP)
      .type('text/html; charset=utf-8')
      .send(html);
  });

  app.get('/dev/price/state', (_req, reply) =>
    reply.header('cache-control', 'no-store').send(snapshot(opts, now())),
  );

  app.post<{ Params: { mode: string }; Querystring: { seconds?: string } }>(
    '/dev/price/:mode',
    async (req, reply) => {
      const mode = req.params.mode as DemoMarketMode;
      if (!DEMO_MARKET_MODES.includes(mode))
        return reply
          .status(400)
          .send({ error: 'unknown_mode', message: `mode: one of ${DEMO_MARKET_MODES.join(', ')}` });
      const raw = req.query.seconds;
      const seconds = raw === undefined ? undefined : Number(raw);
      if (seconds !== undefined && !(Number.isInteger(seconds) && seconds >= 1 && seconds <= 86_400))
        return reply
          .status(400)
          .send({ error: 'bad_seconds', message: 'seconds: a whole number from 1 to 86400' });
      opts.market.set(mode, now(), seconds === undefined ? undefined : seconds * 1000);
      await opts.price.refresh();
      if ((req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
        return reply.redirect('/dev/price', 303);
      return reply.header('cache-control', 'no-store').send(snapshot(opts, now()));
    },
  );
};
