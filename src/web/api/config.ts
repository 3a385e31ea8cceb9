import { useEffect, useState } from 'react';
import type { PublicConfig } from '../../core/api';
import { bootConfig } from './boot';

/**
 * GET /api/config: the public settings (mint address, price pair). Fetched once per visit, unless the page came
 * with them (api/boot.ts: the server sends them inline with the HTML).
 */
let cached: Promise<PublicConfig | null> | undefined;

export function fetchConfig(): Promise<PublicConfig | null> {
  const inline = cached ? null : bootConfig();
  if (inline) cached = Promise.resolve(inline);
  cached ??= fetch('/api/config', { headers: { accept: 'application/json' } })
    .then(async (res) => {
      if (!res.ok) throw new Error(String(res.status));
      const body = (await res.json()) as Partial<PublicConfig>;
      if (typeof body.claimMint !== 'string' || typeof body.pairAddress !== 'string')
        throw new Error('bad config');
      return body as PublicConfig;
    })
    .catch(() => {
      cached = undefined; // try again next time
      return null;
    });
  return cached;
}

export type ConfigState =
  { status: 'loading' } | { status: 'known'; config: PublicConfig } | { status: 'failed' };

export function useConfig(): ConfigState {
  const [state, setState] = useState<ConfigState>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    void fetchConfig().then((config) => {
      if (live) setState(config ? { status: 'known', config } : { status: 'failed' });
    });
    return () => {
      live = false;
    };
  }, []);
  return state;
}
