import type { CheckoutProps } from '../types';

/**
 * Wallet checkout (Phantom). Issue 2 ships the button and the form check only; the wallet-checkout engineer
 * replaces the click handler with the payment flow (spec §4) and may wrap this in the wallet providers.
 * Default export: loaded lazily by the product page, so wallet code never reaches the light pages.
 */
export default function WalletPay({ claimBaseUnits, validateShipping }: CheckoutProps) {
  const ready = claimBaseUnits !== null && claimBaseUnits > 0n;
  const onBuy = () => {
    const shipping = validateShipping();
    if (!shipping) return;
    // Payment flow lands with the wallet checkout (issue: wallet checkout).
  };
  return (
    <div className="pay">
      <button type="button" className="button big buy-now" disabled={!ready} onClick={onBuy}>
        {ready ? 'Buy Now' : 'Loading Price...'}
      </button>
    </div>
  );
}
