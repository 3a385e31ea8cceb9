import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { resolveScreen } from '../core/routes';
import { AppRoutes, preloadScreen } from './app/AppRoutes';
import { catalog } from './catalog';
import { captureReferral } from './lib/referral';
import { watchEarlyInput } from './lib/early-input';
import { startEarlyRecord } from './lib/early-record';
import './styles.css';

captureReferral(window.location.search, window.localStorage);

const app = (
  <StrictMode>
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  </StrictMode>
);

const root = document.getElementById('root');
const screen = resolveScreen(catalog, window.location.pathname);
// An order page is client-rendered data: the server sends the bare shell, or the 404 page for a token that names
// no order (nothing to hydrate into an order page then: render afresh, and the page says the order is unknown).
if (root && screen.kind === 'order') {
  root.textContent = '';
  createRoot(root).render(app);
} else if (root?.firstElementChild) {
  // Prerendered at build time (scripts/prerender.ts): hydrate once the screen's chunks are here, so the page
  // hydrates in one pass. A failed chunk fetch still hydrates (the lazy page retries and shows its fallback).
  // What the buyer typed into the prerendered form meanwhile is taken just before (lib/early-input.ts).
  // A QR product page on sale carries its first quote: its record is asked for now, beside the chunks, not a
  // round trip after them (lib/early-record.ts).
  if (screen.kind === 'product' && screen.product.payment === 'qr') startEarlyRecord(screen.product.id);
  const hydrate = () => {
    watchEarlyInput(root);
    hydrateRoot(root, app);
  };
  preloadScreen(screen).then(hydrate, hydrate);
} else if (root) {
  createRoot(root).render(app);
}
