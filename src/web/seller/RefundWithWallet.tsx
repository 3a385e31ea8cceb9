/**
 * "Refund with wallet": loaded lazily on the click, so the wallet code stays out of the console until then.
 * Connects the payout wallet (the one chosen at sign-in is remembered and asked first; otherwise the same picker
 * as the sign-in), checks it is the order's payout wallet, has it sign and send the refund (./refund-tx.ts, built
 * with @solana/kit), and records it through the server's on-chain check (POST /api/seller/orders/:id/refund).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { PublicConfig } from '../../core/api';
import type { SellerException, SellerOrderDetail, SellerPayer } from '../../core/seller-api';
import { useWalletSession, type Connected } from '../components/WalletSession';
import { ApiRequestError } from '../lib/call';
import { formatClaim } from '../lib/claim-amount';
import { solanaRpc } from '../lib/solana-rpc';
import { address } from '../lib/wallet-tx';
import { chainOf, isUserRejection } from '../lib/wallets';
import { sellerApi } from './api';
import { sendRefund } from './refund-tx';
import { SellerWalletProviders } from './SellerWallet';

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
    <SellerWalletProviders>
      <RefundFlow {...props} />
    </SellerWalletProviders>
  );
}

const short = (a: string) => `${a.slice(0, 4)}…${a.slice(-4)}`;

function RefundFlow(props: RefundWithWalletProps) {
  const { wallet, account, connect, openPicker, pickerOpen } = useWalletSession();
  const rpc = useMemo(() => solanaRpc(props.config.rpcUrl), [props.config.rpcUrl]);
  const chain = chainOf(props.config.cluster);
  const [step, setStep] = useState('Connecting the wallet…');
  const started = useRef(false);
  const asked = useRef(false);
  const { order, payer, amountBaseUnits, exception, onRecorded, onFailed } = props;

  // No wallet remembered from the sign-in: choose one in the picker.
  useEffect(() => {
    if (!wallet && !asked.current) {
      asked.current = true;
      openPicker();
    }
  }, [wallet, openPicker]);

  const run = useCallback(
    async (conn: Connected | null) => {
      const vendor = conn?.account.address ?? null;
      if (!conn || !vendor) {
        onFailed('The wallet did not connect: no refund was sent.');
        return;
      }
      if (vendor !== order.recipient) {
        onFailed(
          `The wallet connected is ${short(vendor)}, not this order's payout wallet ${short(order.recipient)}: refunds are sent from the payout wallet.`,
        );
        return;
      }
      let sent: string | undefined;
      try {
        setStep('Approve the refund in your wallet…');
        sent = await sendRefund(
          { rpc, wallet: conn.wallet, account: conn.account, chain },
          {
            mint: address(order.mint),
            vendor: address(vendor),
            payerOwner: payer.owner ? address(payer.owner) : null,
            payerTokenAccount: address(payer.tokenAccount),
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
            : isUserRejection(err) ||
                /reject|declin|cancel/i.test(err instanceof Error ? err.message : String(err))
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
    [order, payer, amountBaseUnits, exception, rpc, chain, onRecorded, onFailed],
  );

  // The wallet (remembered, or chosen in the picker): connected (asked only if not yet), then the refund.
  useEffect(() => {
    if (!wallet || started.current) return;
    started.current = true;
    const connected: Promise<Connected | null> = account
      ? Promise.resolve({ wallet, account })
      : connect(wallet).catch(() => null);
    void connected.then(run);
  }, [wallet, account, connect, run]);

  return (
    <p role="status">
      {step}{' '}
      {!wallet && !pickerOpen && (
        <button type="button" className="button" onClick={openPicker}>
          Choose a wallet
        </button>
      )}
    </p>
  );
}
