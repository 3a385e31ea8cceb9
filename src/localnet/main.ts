/** `npm run localnet`: the demo Solana network on LOCALNET_PORT (default 8899, WebSocket +1). */
import { startLocalnet } from './index.js';

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65534) {
    console.error(`${name} must be an integer port between 0 and 65534 (got ${JSON.stringify(raw)})`);
    process.exit(1);
  }
  return n;
}

const net = await startLocalnet({
  port: envInt('LOCALNET_PORT', 8899),
  host: process.env.LOCALNET_HOST ?? '127.0.0.1',
  slotMs: envInt('LOCALNET_SLOT_MS', 400),
  finalizeLag: envInt('LOCALNET_FINALIZE_LAG', 32),
  publicLimits: process.env.LOCALNET_PUBLIC_LIMITS === '1',
  // DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT=gorilla: that vendor starts without its $CLAIM account (two-approval demo).
  withoutTokenAccount: (process.env.DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean),
});
const k = net.keys;
console.log(`localnet RPC        ${net.rpcUrl}`);
console.log(`localnet WebSocket  ${net.wsUrl}`);
if (process.env.LOCALNET_PUBLIC_LIMITS === '1')
  console.log('public limits       per IP per 10 s: 100 requests, 40 per method (HTTP 429 above)');
if (k) {
  console.log(`$CLAIM mint         ${k.mint} (6 decimals)`);
  console.log(`mint authority      ${k.mintAuthority.address}`);
  for (const group of ['coopersglass', 'gorilla'] as const) {
    const ata = net.recipientTokenAccounts?.[group] ?? '?';
    const note = net.withoutTokenAccount.includes(group)
      ? `no token account on purpose; it will be ${ata}`
      : `token account ${ata}`;
    console.log(`${group.padEnd(20)}${k.recipients[group]} (${note})`);
  }
}
console.log(
  `faucet              curl -X POST ${net.rpcUrl}/faucet -H 'content-type: application/json' -d '{"address":"<pubkey>","sol":1,"claim":1000}'`,
);

const stop = (): void => {
  void net.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
