/**
 * The local network in its own process for the benchmarks (as a real RPC provider is another machine): the load
 * generator's event loop and the network's block production do not share a CPU thread, so neither skews the
 * other's figures. Forked by `startLocalnetProcess` (./production.ts); controlled over IPC.
 */
import { startLocalnet } from '../../test/support/localnet';

const net = await startLocalnet({ port: 0, publicLimits: process.argv.includes('--public-limits') });
process.send?.({
  ready: { rpcUrl: net.rpcUrl, wsUrl: net.wsUrl, mint: net.keys?.mint.toBase58() },
});
process.on('message', (m: { id: number; subs?: true; wsDown?: boolean }) => {
  if (m.subs) process.send?.({ id: m.id, subs: net.subscriptionCount() });
  else if (m.wsDown !== undefined) {
    net.setWebSocketDown(m.wsDown);
    process.send?.({ id: m.id, ok: true });
  }
});
process.on('disconnect', () => {
  void net.close().then(() => process.exit(0));
});
