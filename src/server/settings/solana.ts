import { redactUrl, registerSecrets } from '../redact';
import { section, urlPassword } from './schema';
import type { LoadContext, Settings } from './types';

const CLUSTERS = ['mainnet-beta', 'devnet', 'testnet', 'localnet'] as const;

/** The cluster's public endpoint: what browsers use when SOLANA_BROWSER_RPC_URL is unset. */
const PUBLIC_ENDPOINT: Record<string, string | undefined> = {
  'mainnet-beta': 'https://api.mainnet-beta.solana.com',
  devnet: 'https://api.devnet.solana.com',
  testnet: 'https://api.testnet.solana.com',
};

/** The chain: the server's and the browser's RPC, the cluster, the $CLAIM mint, the demo localnet, the budget. */
export const solanaSection = section({
  title: 'Solana',
  settings: {
    SOLANA_RPC_URL: {
      doc: "The server's Solana JSON-RPC URL; it may carry a provider key and is never sent to the browser.",
      defaultDoc: 'unset: demo mode, the localnet at http://127.0.0.1:LOCALNET_PORT',
    },
    SOLANA_WS_URL: {
      doc: "The server's Solana WebSocket URL.",
      defaultDoc: 'SOLANA_RPC_URL over ws(s) (on the localnet, the next port)',
    },
    SOLANA_CLUSTER: {
      doc: 'The cluster the store pays on.',
      defaultDoc: 'mainnet-beta (demo mode: localnet)',
      values: CLUSTERS.join(', '),
    },
    SOLANA_BROWSER_RPC_URL: {
      doc: "What the browser's wallet connection uses; never the server's SOLANA_RPC_URL when that carries credentials.",
      defaultDoc: "the cluster's public endpoint (demo mode: the localnet)",
    },
    SOLANA_BROWSER_WS_URL: {
      doc: "The browser's WebSocket URL.",
      defaultDoc: 'SOLANA_BROWSER_RPC_URL over ws(s)',
    },
    LOCALNET_PORT: {
      doc: "Demo mode: the built-in localnet's RPC port (its WebSocket is on the next port).",
      default: 8899,
      int: [0, 65534],
    },
    DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: {
      doc: 'Demo mode only: payout groups whose $CLAIM token account the demo localnet leaves out (comma-separated), to show the wallet purchase that creates it.',
      defaultDoc: 'none',
    },
    SOLANA_RPC_BUDGET: {
      doc: "The shop's Solana JSON-RPC requests per 10 s, all callers together (40 % of it per method): on PostgreSQL the whole fleet's (every instance on the store spends from it), on SQLite the one process's.",
      default: 60,
      int: [5, 100_000],
    },
    CLAIM_MINT: {
      doc: "The $CLAIM token's mint address (base58). Required outside demo mode.",
      defaultDoc: "none (demo mode: the localnet's demo mint)",
    },
  },
  read(
    r,
    ctx: LoadContext,
  ): Pick<
    Settings,
    'solana' | 'claimMint' | 'localnetPort' | 'demoVendorsWithoutTokenAccount' | 'rpcBudget'
  > {
    const { demo: isDemo, groups } = ctx;
    if (isDemo && !ctx.demoDefaults)
      r.problem('SOLANA_RPC_URL: required outside demo mode (demo mode needs the localnet keys)');

    const localnetPort = r.int('LOCALNET_PORT');
    const withoutAccountRaw = r.get('DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT');
    const demoVendorsWithoutTokenAccount = (withoutAccountRaw ?? '')
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean);
    if (withoutAccountRaw !== undefined && !isDemo)
      r.problem('DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: only for demo mode (the demo localnet); unset it');
    for (const g of demoVendorsWithoutTokenAccount)
      if (!groups.includes(g))
        r.problem(
          `DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: '${g}' is no payout group (one of ${groups.join(', ')})`,
        );

    const rpcUrl = r.url('SOLANA_RPC_URL', `http://127.0.0.1:${localnetPort}`) ?? '';
    const wsDefault = rpcUrl
      ? rpcUrl.replace(/^http/, 'ws').replace(/:(\d+)$/, (_m, p: string) => `:${Number(p) + 1}`)
      : undefined;
    const wsUrl = r.url('SOLANA_WS_URL', wsDefault, ['ws:', 'wss:']) ?? '';
    const hasCredentials = (raw: string): boolean => redactUrl(raw) !== raw || /[?#]/.test(raw);
    const clusterRaw = r.get('SOLANA_CLUSTER') ?? (isDemo ? 'localnet' : 'mainnet-beta');
    const known = (CLUSTERS as readonly string[]).includes(clusterRaw);
    const cluster = known ? (clusterRaw as Settings['solana']['cluster']) : 'mainnet-beta';
    if (!known) r.problem(`SOLANA_CLUSTER: must be one of ${CLUSTERS.join(', ')}`);

    // The browser's RPC: SOLANA_BROWSER_RPC_URL, else the cluster's public endpoint; on a localnet (demo, tests)
    // the server's own URL, which carries no key there. Never the server's URL when that has credentials.
    const browserDefault = cluster === 'localnet' ? rpcUrl : PUBLIC_ENDPOINT[cluster];
    const browserRpcUrl = r.url('SOLANA_BROWSER_RPC_URL', browserDefault) ?? '';
    if (browserRpcUrl && rpcUrl && browserRpcUrl === rpcUrl && hasCredentials(rpcUrl))
      r.problem(
        'SOLANA_BROWSER_RPC_URL: must not be SOLANA_RPC_URL, which carries credentials (browsers would see them)',
      );
    if (cluster === 'localnet' && !r.get('SOLANA_BROWSER_RPC_URL') && rpcUrl && hasCredentials(rpcUrl))
      r.problem('SOLANA_BROWSER_RPC_URL: required when SOLANA_RPC_URL carries credentials');
    const browserWsDefault =
      browserRpcUrl === rpcUrl && !r.get('SOLANA_BROWSER_RPC_URL')
        ? wsUrl
        : browserRpcUrl
          ? browserRpcUrl.replace(/^http/, 'ws')
          : undefined;
    const browserWsUrl = r.url('SOLANA_BROWSER_WS_URL', browserWsDefault, ['ws:', 'wss:']) ?? '';
    if (r.get('SOLANA_BROWSER_WS_URL') && browserWsUrl === wsUrl && hasCredentials(wsUrl))
      r.problem('SOLANA_BROWSER_WS_URL: must not be SOLANA_WS_URL, which carries credentials');

    const claimMint = r.pubkey('CLAIM_MINT', isDemo ? ctx.demoDefaults?.claimMint : undefined);
    // The public mainnet endpoint allows 100 requests per 10 s per IP (40 per method): 60 leaves room for the
    // browser's own traffic when both share an address, and for other tools.
    const rpcBudget = { per10s: r.int('SOLANA_RPC_BUDGET') };
    registerSecrets([urlPassword(rpcUrl)]);
    return {
      solana: { rpcUrl, wsUrl, browserRpcUrl, browserWsUrl, cluster },
      claimMint,
      localnetPort,
      demoVendorsWithoutTokenAccount,
      rpcBudget,
    };
  },
});
