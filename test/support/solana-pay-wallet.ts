/**
 * A wallet paying a Solana Pay link with @solana/pay's own client, in a process of its own so that it trusts the
 * test's HTTPS certificate the way the issue asks: through NODE_EXTRA_CA_CERTS (read by Node at start-up, so it
 * cannot be set from inside the test process). Used by test/integration/transaction-requests.test.ts:
 *
 *   node --import tsx test/support/solana-pay-wallet.ts '<json>'
 *
 * Input: { qr, rpcUrl, secretKey (base64 of the 64-byte key), lowerTo?: base units, validate?: transfer fields }.
 * Steps: parseURL(qr) → GET the link ({label, icon}) and the icon → fetchTransaction (POST {account}) → sign (the
 * buyer alone) and send to the localnet, wait for `confirmed` → validateTransfer. `lowerTo` plays a wallet that
 * changes the amount downward before signing. Prints one JSON line with what each step saw.
 */
import { Connection, Keypair, VersionedTransaction } from '@solana/web3.js';
import { address, signature as toSignature } from '@solana/kit';
import { createMerchantClient, fetchTransaction, parseURL, validateTransfer } from 'solana-pay-client';

interface Input {
  qr: string;
  rpcUrl: string;
  secretKey: string;
  lowerTo?: string;
  validate?: { recipient: string; amount: number; splToken: string; reference: string };
}

const input = JSON.parse(process.argv[2] ?? '{}') as Input;
const out: Record<string, unknown> = {};
try {
  const parsed = parseURL(input.qr);
  if (!('link' in parsed)) throw new Error('parseURL: not a transaction request');
  out.link = parsed.link.toString();

  const get = await fetch(parsed.link, { headers: { accept: 'application/json' } });
  out.get = {
    status: get.status,
    cors: get.headers.get('access-control-allow-origin'),
    body: await get.json(),
  };
  const icon = (out.get as { body: { icon?: string } }).body.icon;
  if (icon) {
    const res = await fetch(icon);
    out.icon = {
      status: res.status,
      type: res.headers.get('content-type'),
      bytes: (await res.arrayBuffer()).byteLength,
    };
  }

  const buyer = Keypair.fromSecretKey(Buffer.from(input.secretKey, 'base64'));
  const merchant = createMerchantClient({ rpcUrl: input.rpcUrl });
  const fetched = await fetchTransaction(merchant.rpc, address(buyer.publicKey.toBase58()), parsed.link);
  const signers = Object.keys(fetched.signatures);
  out.signers = signers;
  // The wire form of the fetched transaction: its one signature slot (empty), then the message.
  const wire = new Uint8Array(1 + 64 + fetched.messageBytes.length);
  wire[0] = 1;
  wire.set(fetched.messageBytes, 65);
  const tx = VersionedTransaction.deserialize(wire);
  const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
  out.programs = tx.message.compiledInstructions.map((ix) => keys[ix.programIdIndex]);
  if (input.lowerTo !== undefined) {
    const transfer = tx.message.compiledInstructions.find(
      (ix) => keys[ix.programIdIndex] === 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' && ix.data[0] === 12,
    );
    if (!transfer) throw new Error('no TransferChecked to lower');
    new DataView(transfer.data.buffer, transfer.data.byteOffset + 1, 8).setBigUint64(
      0,
      BigInt(input.lowerTo),
      true,
    );
  }
  tx.sign([buyer]);
  const connection = new Connection(input.rpcUrl, 'confirmed');
  const sig = await connection.sendRawTransaction(tx.serialize());
  out.signature = sig;
  for (let i = 0; i < 200; i += 1) {
    const s = (await connection.getSignatureStatuses([sig])).value[0];
    if (s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized') {
      out.err = s.err;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (input.validate) {
    try {
      await validateTransfer(merchant.rpc, toSignature(sig), {
        recipient: address(input.validate.recipient),
        amount: input.validate.amount,
        splToken: address(input.validate.splToken),
        reference: address(input.validate.reference),
      });
      out.validated = true;
    } catch (err) {
      out.validated = err instanceof Error ? err.message : String(err);
    }
  }
} catch (err) {
  out.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
process.stdout.write(`${JSON.stringify(out)}\n`);
