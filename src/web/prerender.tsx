/**
 * Build-time prerender entry (scripts/prerender.ts builds it with `vite build --ssr` and renders every page
 * path with it). `prerenderToNodeStream` waits for the lazy screens, so the HTML holds the whole page in the
 * state the browser's first render has: prices, the QR and the wallet controls in their loading states.
 */
import { StrictMode } from 'react';
import { prerenderToNodeStream } from 'react-dom/static';
import { StaticRouter } from 'react-router-dom';
import { AppRoutes } from './app/AppRoutes';
import { fullTitle, takeServerTitle } from './lib/title';

export interface Prerendered {
  html: string;
  title: string;
}

export async function renderPage(path: string): Promise<Prerendered> {
  takeServerTitle();
  const { prelude } = await prerenderToNodeStream(
    <StrictMode>
      <StaticRouter location={path}>
        <AppRoutes />
      </StaticRouter>
    </StrictMode>,
  );
  let html = '';
  for await (const chunk of prelude) html += String(chunk);
  return { html, title: takeServerTitle() ?? fullTitle('') };
}
