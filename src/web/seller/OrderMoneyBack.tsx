/**
 * Money back, in the order view: who paid and what is owed, "Refund with wallet" (the payout wallet signs), a
 * refund sent elsewhere recorded by its signature, "Cancel order and refund", and resolving an exception with a
 * reason.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import type { SellerException, SellerOrderDetail, SellerPayer } from '../../core/seller-api';
import type { ConfigState } from '../api/config';
import { defaultRefundTo } from '../../core/refunds';
import { formatClaim } from '../lib/claim-amount';
import { sellerApi } from './api';
import { EXCEPTION_LABEL, when } from './labels';
import { REFUNDABLE } from './order-words';
import { claimText, short, type Act } from './order-view-lib';
import { parseClaimInput } from './refund-tx';

const RefundWithWallet = lazy(() => import('./RefundWithWallet'));

/** The most one refund against `exception` may return to this payer now (the server's rule, src/core/refunds.ts). */
const limitOf = (p: SellerPayer | undefined, exception: SellerException): bigint =>
  BigInt(p?.refundLimits[exception] ?? '0');

/** The payer a refund goes to by default: the one owed most now (defaultRefundTo, the rule the check applies). */
function defaultPayer(order: SellerOrderDetail, exception: SellerException): SellerPayer | undefined {
  return defaultRefundTo(order.payers.map((p) => ({ p, limitBaseUnits: limitOf(p, exception) })))?.p;
}

export function MoneyBack(props: {
  order: SellerOrderDetail;
  open: SellerException[];
  config: ConfigState;
  act: Act;
  onRecorded: (o: SellerOrderDetail, message: string) => void;
  onFailed: (message: string) => void;
}) {
  const { order, open } = props;
  const owed = BigInt(order.owed.owedBaseUnits);
  const refunded = BigInt(order.owed.refundedBaseUnits);
  const refundable = open.filter((x) => REFUNDABLE.includes(x));
  if (order.payments.length === 0 || (owed === 0n && refunded === 0n && refundable.length === 0)) return null;
  return (
    <section className="seller-money-back" aria-label="Money back">
      <h3>Money back</h3>
      <dl className="seller-facts" data-testid="order-owed">
        <dt>Owed back</dt>
        <dd>{claimText(order.owed.owedBaseUnits)}</dd>
        <dt>Refunded</dt>
        <dd>{claimText(order.owed.refundedBaseUnits)}</dd>
        <dt>Still owed</dt>
        <dd>
          <strong>{claimText(order.owed.remainingBaseUnits)}</strong>
        </dd>
      </dl>
      <h4>Who paid</h4>
      {order.payersKnown ? (
        <ul className="seller-rows" data-testid="order-payers">
          {order.payers.map((p) => (
            <li key={p.tokenAccount}>
              <a href={p.explorerUrl} target="_blank" rel="noopener noreferrer" className="seller-address">
                {p.owner ?? p.tokenAccount}
              </a>{' '}
              paid {claimText(p.paidBaseUnits)}
              {BigInt(p.owedBaseUnits) > 0n ? `, owed ${claimText(p.owedBaseUnits)}` : ''}
            </li>
          ))}
        </ul>
      ) : (
        <p>The paying wallet could not be read from the network just now. Reload the order to try again.</p>
      )}
      {order.refunds.length > 0 && (
        <>
          <h4>Refunds sent</h4>
          <ul className="seller-rows" data-testid="order-refunds">
            {order.refunds.map((r) => (
              <li key={r.signature}>
                {claimText(r.amountBaseUnits)}, {when(r.at)} —{' '}
                <a href={r.transactionUrl} target="_blank" rel="noopener noreferrer">
                  view transaction {short(r.signature)}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
      {refundable.map((x) =>
        x === 'cancel_requested' && order.status !== 'cancelled' ? (
          <CancelForm key={x} order={order} act={props.act} />
        ) : (
          <RefundForm key={x} {...props} exception={x} />
        ),
      )}
    </section>
  );
}

/** The buyer asked to cancel a paid order: cancel it (pieces back on sale), then everything paid is owed back. */
function CancelForm({ order, act }: { order: SellerOrderDetail; act: Act }) {
  return (
    <div className="seller-refund" data-exception="cancel_requested">
      <h4>The buyer asked to cancel</h4>
      <p>
        Cancel the order to put its pieces back on sale; then refund everything the buyer paid (
        {claimText(order.owed.receivedBaseUnits)}) with your wallet. If it has already shipped or you decline,
        record why under “To look at” instead.
      </p>
      <button
        type="button"
        className="button"
        data-testid="cancel-order"
        onClick={() =>
          void act(
            () => sellerApi.cancel(order.orderId),
            'Order cancelled and its pieces are back on sale. Now refund what the buyer paid.',
          )
        }
      >
        Cancel order and refund
      </button>
    </div>
  );
}

function RefundForm(props: {
  order: SellerOrderDetail;
  exception: SellerException;
  config: ConfigState;
  act: Act;
  onRecorded: (o: SellerOrderDetail, message: string) => void;
  onFailed: (message: string) => void;
}) {
  const { order, exception } = props;
  const remaining = BigInt(order.owed.remainingBaseUnits);
  const refundable = BigInt(order.owed.refundableBaseUnits);
  // By default the payer owed most now, and what is owed to them: each payer gets back at most what they paid
  // beyond what the order needed (everything they paid when the order goes back whole); a payer of dust nothing.
  const [payerKey, setPayerKey] = useState(defaultPayer(order, exception)?.tokenAccount ?? '');
  const payer = order.payers.find((p) => p.tokenAccount === payerKey);
  const orderMost = remaining > 0n ? remaining : refundable;
  const most = order.payersKnown ? limitOf(payer, exception) : orderMost;
  const [amount, setAmount] = useState(formatClaim(most));
  const [sending, setSending] = useState<{ amount: bigint; payer: SellerPayer } | null>(null);
  const [refusal, setRefusal] = useState('');
  const [signature, setSignature] = useState('');
  useEffect(() => setAmount(formatClaim(most)), [most]);
  const config = props.config.status === 'known' ? props.config.config : undefined;

  const start = () => {
    setRefusal('');
    const base = parseClaimInput(amount);
    if (base === null || base <= 0n)
      return setRefusal('Type the amount to refund in $CLAIM, for example 5 or 2.5.');
    if (!payer) return setRefusal('Who paid is not known yet: reload the order to read it from the network.');
    if (base > most)
      return setRefusal(
        `That is more than this order can refund${order.payers.length > 1 ? ' to that wallet' : ''}: at most ${claimText(most)}${remaining > 0n ? ' (what is still owed)' : ' (what was received and not yet refunded)'}.`,
      );
    setSending({ amount: base, payer });
  };

  return (
    <div className="seller-refund" data-exception={exception}>
      <h4>Refund for “{EXCEPTION_LABEL[exception]}”</h4>
      {orderMost === 0n || (order.payersKnown && defaultPayer(order, exception) === undefined) ? (
        <p>Nothing more can be refunded for this order.</p>
      ) : (
        <form
          className="seller-form"
          onSubmit={(e) => {
            e.preventDefault();
            start();
          }}
        >
          <label>
            Amount ($CLAIM, at most {formatClaim(most)})
            <input
              inputMode="decimal"
              autoComplete="off"
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
              disabled={sending !== null}
            />
          </label>
          {order.payers.length > 1 && (
            <label>
              To
              <select value={payerKey} onChange={(e) => setPayerKey(e.target.value)}>
                {order.payers.map((p) => (
                  <option key={p.tokenAccount} value={p.tokenAccount}>
                    {short(p.owner ?? p.tokenAccount)} (paid {claimText(p.paidBaseUnits)}, owed{' '}
                    {claimText(limitOf(p, exception).toString())})
                  </option>
                ))}
              </select>
            </label>
          )}
          {payer && order.payers.length === 1 && (
            <p className="seller-hint">
              To <span className="seller-address">{payer.owner ?? payer.tokenAccount}</span>, from your payout
              wallet, with the order number {order.orderNumber} in the memo.
            </p>
          )}
          <button type="submit" className="button" disabled={sending !== null || !config}>
            Refund with wallet
          </button>
        </form>
      )}
      {refusal && (
        <p className="error" role="alert">
          {refusal}
        </p>
      )}
      {sending && config && (
        <Suspense fallback={<p role="status">Loading the wallet…</p>}>
          <RefundWithWallet
            config={config}
            order={order}
            exception={exception}
            payer={sending.payer}
            amountBaseUnits={sending.amount}
            onRecorded={(o, m) => {
              setSending(null);
              props.onRecorded(o, m);
            }}
            onFailed={(m, sent) => {
              setSending(null);
              if (sent) setSignature(sent);
              props.onFailed(m);
            }}
          />
        </Suspense>
      )}
      <details>
        <summary>Refunded from another wallet or app? Record it by its signature</summary>
        <form
          className="seller-form"
          onSubmit={(e) => {
            e.preventDefault();
            void props.act(
              () => sellerApi.refund(order.orderId, exception, signature.trim()),
              'Refund checked on chain and recorded.',
            );
          }}
        >
          <label>
            Refund transaction signature for “{EXCEPTION_LABEL[exception]}”
            <input
              required
              spellCheck={false}
              autoComplete="off"
              value={signature}
              onChange={(e) => setSignature(e.target.value)}
            />
          </label>
          <button type="submit" className="button">
            Mark refunded
          </button>
        </form>
      </details>
    </div>
  );
}

export function ResolveForm(props: { order: SellerOrderDetail; exception: SellerException; act: Act }) {
  const [note, setNote] = useState('');
  const { order, exception } = props;
  return (
    <form
      className="seller-form"
      onSubmit={(e) => {
        e.preventDefault();
        void props.act(() => sellerApi.resolve(order.orderId, exception, note), 'Recorded.');
      }}
    >
      <label>
        What you did about “{EXCEPTION_LABEL[exception]}”
        <input required value={note} onChange={(e) => setNote(e.target.value)} />
      </label>
      <button type="submit" className="button">
        Record action
      </button>
    </form>
  );
}
