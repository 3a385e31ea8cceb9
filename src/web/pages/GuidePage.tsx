import { useEffect, useRef, useState } from 'react';
import { useConfig } from '../api/config';
import { jupiterSwapUrl, PHANTOM_DOWNLOAD_URL } from '../lib/links';
import { usePageTitle } from '../lib/title';

type Step = 1 | 2 | 3;

/**
 * The get-started guide: step 1, then 2, then 3, forward only (spec §2, §4). Step 3 shows the mint address with a
 * copy button, and its congratulation line says what is true then (the swap is the buyer's to do).
 */
export default function GuidePage() {
  usePageTitle('Get Started with Reclaim');
  const [step, setStep] = useState<Step>(1);
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  const config = useConfig();
  const [copied, setCopied] = useState<string | null>(null);
  const copyMint = async (mint: string) => {
    try {
      await navigator.clipboard.writeText(mint);
      setCopied('Mint address copied: paste it into the swap as the token to receive.');
    } catch {
      setCopied('Could not copy: select the address above and copy it by hand.');
    }
  };

  useEffect(() => {
    if (moved.current) heading.current?.focus();
  }, [step]);
  const next = (s: Step) => {
    moved.current = true;
    setStep(s);
  };

  return (
    <div className="page narrow guide">
      <h1>Get Started with Reclaim</h1>
      <ol className="stepper" aria-label="Progress">
        {[1, 2, 3].map((n) => (
          <li
            key={n}
            className={n === step ? 'current' : n < step ? 'done' : ''}
            aria-current={n === step ? 'step' : undefined}
          >
            Step {n}
          </li>
        ))}
      </ol>
      <section className="card guide-step" aria-labelledby="guide-step-title">
        {step === 1 && (
          <>
            <h2 id="guide-step-title" ref={heading} tabIndex={-1}>
              Step 1: Download a wallet
            </h2>
            <p>
              Install Phantom, a Solana wallet for your phone or browser:{' '}
              <a href={PHANTOM_DOWNLOAD_URL} target="_blank" rel="noopener noreferrer">
                Download Phantom Wallet
              </a>
              . Create a wallet and keep your recovery phrase somewhere safe and offline.
            </p>
            <button type="button" className="button" onClick={() => next(2)}>
              Continue to Step 2
            </button>
          </>
        )}
        {step === 2 && (
          <>
            <h2 id="guide-step-title" ref={heading} tabIndex={-1}>
              Step 2: Buy Solana
            </h2>
            <p>
              In your wallet, choose Buy and purchase SOL with a card or bank transfer. Keep a little SOL for
              network fees.
            </p>
            <button type="button" className="button" onClick={() => next(3)}>
              I Bought SOL - Next Step
            </button>
          </>
        )}
        {step === 3 && (
          <>
            <h2 id="guide-step-title" ref={heading} tabIndex={-1}>
              Step 3: Swap SOL for $CLAIM
            </h2>
            <p>
              Open the swap in your wallet (or on Jupiter), choose SOL to pay and paste the $CLAIM token mint
              address to receive:
            </p>
            {config.status === 'known' ? (
              <>
                <p className="mono address" data-testid="mint-address">
                  {config.config.claimMint}
                </p>
                <p className="actions">
                  <button
                    type="button"
                    className="button"
                    onClick={() => void copyMint(config.config.claimMint)}
                  >
                    Copy the mint address
                  </button>
                  <a
                    className="button secondary"
                    href={jupiterSwapUrl(config.config.claimMint)}
                    target="_blank"
                    rel="noopener noreferrer"
                  >
                    Swap SOL for $CLAIM on Jupiter
                  </a>
                </p>
                {copied && (
                  <p className="note" role="status" data-testid="mint-copied">
                    {copied}
                  </p>
                )}
              </>
            ) : config.status === 'loading' ? (
              <p>Loading the mint address…</p>
            ) : (
              <p className="error">The mint address could not be loaded. Please reload the page.</p>
            )}
            <p className="congrats">
              Once the swap has gone through, your $CLAIM shows in your wallet: congratulations, you are part
              of the Reclaim community!
            </p>
          </>
        )}
      </section>
    </div>
  );
}
