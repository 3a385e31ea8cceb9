/**
 * `npm run demo:pay -- '<solana: URL>'`: pays a Solana Pay transfer request on the demo localnet, as a wallet
 * that scanned the QR would: a demo buyer (deterministic key, funded from the faucet when short) sends a
 * TransferChecked of exactly the requested amount to the recipient's token account, with the reference attached
 * as a read-only key (creating the recipient's token account when missing). The network is the store's own
 * localnet: LOCALNET_PORT when set, else the running store (PORT, default 3000, or STORE_URL) names it
 * (./demo-network.ts); a link for another token than the store's is refused.
 */
import { parseURL } from 'solana-pay-client';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { Connection, PublicKey, Transaction, sendAndConfirmTransaction } from '@solana/web3.js';
import { parseBaseUnitsText } from '../src/core/money';
import { DEMO_MINT_DECIMALS, demoKeypair } from '../test/support/demo-keypairs';
import { demoNetwork, DemoNetworkError } from './demo-network';

const link = process.argv[2];
if (!link?.startsWith('solana:')) {
  console.error("usage: npm run demo:pay -- 'solana:<recipient>?amount=…&spl-token=…&reference=…'");
  process.exit(2);
}
const parsed = parseURL(link);
if (!('recipient' in parsed) || parsed.amount === undefined || !parsed.splToken) {
  console.error('This link is not an SPL-token transfer request with an amount.');
  process.exit(2);
}
const network = await demoNetwork().catch((err: unknown) => {
  if (!(err instanceof DemoNetworkError)) throw err;
  console.error(err.message);
  process.exit(1);
});
if (network.claimMint !== undefined && network.claimMint !== String(parsed.splToken)) {
  console.error(
    `This link asks for another token than ${network.how}'s $CLAIM: it is not one of its QR links.`,
  );
  process.exit(1);
}
const rpcUrl = network.rpcUrl;
console.log(`local network: ${rpcUrl} (${network.how})`);
const connection = new Connection(rpcUrl, 'confirmed');
const buyer = demoKeypair('demo-buyer');
const recipient = new PublicKey(parsed.recipient);
const mint = new PublicKey(parsed.splToken);
// The amount as the link spells it (six decimals), to exact base units: never through a float.
const amountText = new URL(link.replace(/^solana:/, 'solana://x/')).searchParams.get('amount') ?? '';
const baseUnits = parseBaseUnitsText(amountText);

const fund = await fetch(`${rpcUrl}/faucet`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ address: buyer.publicKey.toBase58(), sol: 1, claim: amountText }),
});
if (!fund.ok) {
  console.error(
    `faucet: ${fund.status} ${await fund.text()} — is the store running in demo mode (npm start)?`,
  );
  process.exit(1);
}

const buyerAta = getAssociatedTokenAddressSync(mint, buyer.publicKey);
const recipientAta = getAssociatedTokenAddressSync(mint, recipient);
const transfer = createTransferCheckedInstruction(
  buyerAta,
  mint,
  recipientAta,
  buyer.publicKey,
  baseUnits,
  DEMO_MINT_DECIMALS,
);
for (const ref of parsed.reference ?? [])
  transfer.keys.push({ pubkey: new PublicKey(ref), isSigner: false, isWritable: false });
const tx = new Transaction().add(
  createAssociatedTokenAccountIdempotentInstruction(buyer.publicKey, recipientAta, recipient, mint),
  transfer,
);
const signature = await sendAndConfirmTransaction(connection, tx, [buyer], { commitment: 'confirmed' });
console.log(
  `paid ${amountText} $CLAIM to ${recipient.toBase58()} from demo buyer ${buyer.publicKey.toBase58()}`,
);
console.log(`signature ${signature}`);
process.exit(0); // web3.js keeps its WebSocket open
