/**
 * "Refund with wallet": loaded lazily on the click, so the wallet adapter (and web3.js) stay out of the console
 * until then. Connects the wallet (the one chosen at sign-in reconnects by itself; otherwise the same modal as
 * the sign-in), checks it is the order's payout wallet, has it sign and send the refund (./refund-tx.ts), and
 * records it through the server's on-chain check (POST /api/seller/orders/:id/refund).
 */
import { useConnection, useWallet } from '@solana/wallet-adapter-react';
import { useWalletModal } from '@solana/wallet-adapter-react-ui';
import { SellerWalletProviders } from './SellerWallet';
import type { Adapter } from '@solana/wallet-adapter-base';
import { PublicKey } from '@solana/web3.js';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { PublicConfig } from '../../core/api';
import type { SellerException, SellerOrderDetail, SellerPayer } from '../../core/seller-api';
import { ApiRequestError } from '../lib/call';
import { formatClaim } from '../lib/claim-amount';
import { sellerApi } from './api';
import { sendRefund } from './refund-tx';

export interface RefundWithWalletProps {
  config: PublicConfig;
  order: SellerOrderDetail;
  exception: SellerException;
  payer: SellerPayer;
  amountBaseUnits: bigint;
  onRecorded: (order: SellerOrderDetail, message: string) => void;
  /** A refusal in words; `sentSignature` when the refund left the wallet but was not recorded. */
  onFailed: (message: string, sentSignature?: string) => void;
}

export default function RefundWithWallet(props: RefundWithWalletProps) {
  return (
    <SellerWalletProviders rpcUrl={props.config.rpcUrl}>
      <RefundFlow {...props} />
    </SellerWalletProviders>
  );
}

const short = (a: string) => `${a.slice(0, 4)}…${a.slice(-4)}`;

function RefundFlow(props: RefundWithWalletProps) {
  const { connection } = useConnection();
  // The adapter itself, not the provider's state: the wallet chosen at sign-in may already be connected.
  const { wallet } = useWallet();
  const { setVisible } = useWalletModal();
  const [step, setStep] = useState('Connecting the wallet…');
  const started = useRef(false);
  const asked = useRef(false);
  const { order, payer, amountBaseUnits, exception, onRecorded, onFailed } = props;

  // No wallet remembered from the sign-in: choose one in the modal.
  useEffect(() => {
    if (!wallet && !asked.current) {
      asked.current = true;
      setVisible(true);
    }
  }, [wallet, setVisible]);

  const run = useCallback(
    async (adapter: Adapter) => {
      let vendor: PublicKey | null = adapter.publicKey;
      try {
        if (!adapter.connected || !vendor) {
          await adapter.connect();
          vendor = adapter.publicKey;
        }
      } catch {
        vendor = null;
      }
      if (!vendor) {
        onFailed('The wallet did not connect: no refund was sent.');
        return;
      }
      if (vendor.toBase58() !== order.recipient) {
        onFailed(
          `The wallet connected is ${short(vendor.toBase58())}, not this order's payout wallet ${short(order.recipient)}: refunds are sent from the payout wallet.`,
        );
        return;
      }
      let sent: string | undefined;
      try {
        setStep('Approve the refund in your wallet…');
        sent = await sendRefund(
          {
            connection,
            sendTransaction: (tx, c, options) => adapter.sendTransaction(tx, c, options),
          },
          {
            mint: new PublicKey(order.mint),
            vendor,
            payerOwner: payer.owner ? new PublicKey(payer.owner) : null,
            payerTokenAccount: new PublicKey(payer.tokenAccount),
            amountBaseUnits,
            orderNumber: order.orderNumber,
          },
          (signature) => {
            sent = signature;
            setStep('Sent; waiting for the network to confirm it…');
          },
        );
      } catch (err) {
        onFailed(
          sent
            ? 'The refund was sent but did not go through on chain; nothing was recorded.'
            : /reject|declin|cancel/i.test(err instanceof Error ? err.message : String(err))
              ? 'The wallet declined: no refund was sent.'
              : 'The refund could not be sent from the wallet; nothing was sent or recorded. Please try again.',
        );
        return;
      }
      try {
        setStep('Checking the refund on chain and recording it…');
        const updated = await sellerApi.refund(order.orderId, exception, sent);
        onRecorded(
          updated,
          `Refund of ${formatClaim(amountBaseUnits)} $CLAIM sent and recorded; the buyer is being e-mailed.`,
        );
      } catch (err) {
        onFailed(
          `The refund was sent (transaction ${short(sent)}) but not recorded: ${err instanceof ApiRequestError ? err.message : 'the store could not be reached.'} Record it below with its signature.`,
          sent,
        );
      }
    },
    [order, payer, amountBaseUnits, exception, connection, onRecorded, onFailed],
  );

  useEffect(() => {
    if (wallet && !started.current) {
      started.current = true;
      void run(wallet.adapter);
    }
  }, [wallet, run]);

  return (
    <p role="status">
      {step}{' '}
      {!wallet && (
        <button type="button" className="button" onClick={() => setVisible(true)}>
          Choose a wallet
        </button>
      )}
    </p>
  );
}
