import { useConfig } from '../api/config';
import { Credits } from '../components/Credits';
import { dexscreenerUrl } from '../lib/links';
import { usePageTitle } from '../lib/title';

export default function AboutPage() {
  usePageTitle('About Us');
  const config = useConfig();
  return (
    <div className="page narrow about">
      <h1>About Us</h1>
      <Credits label="About Reclaim, scrolling credits">
        <h2>Our mission</h2>
        <ul>
          <li>Fair, transparent tokenomics</li>
          <li>A secure, decentralized ecosystem</li>
          <li>Community-driven governance</li>
          <li>Support for victims of fraudulent projects</li>
        </ul>
        <h2>$CLAIM facts</h2>
        <ul>
          <li>Total supply: 1,500,000,000 $CLAIM</li>
          <li>70% of the supply is locked</li>
          <li>Weekly rewards to all holders</li>
          <li>Monthly giveaways</li>
          <li>Weekly burns</li>
          <li>Vendor discounts for holders</li>
          <li>Referral rewards and LP/staking rewards</li>
        </ul>
        <p>
          Reclaim was started by people who lost money to fraudulent projects and decided to build something
          honest instead.
        </p>
      </Credits>
      <section className="card" aria-labelledby="contract-title">
        <h2 id="contract-title">Contract address</h2>
        {config.status === 'known' ? (
          <>
            <p className="mono address" data-testid="mint-address">
              {config.config.claimMint}
            </p>
            <p>
              <a href={dexscreenerUrl(config.config.pairAddress)} target="_blank" rel="noopener noreferrer">
                View the $CLAIM price chart on DEX Screener
              </a>
            </p>
          </>
        ) : config.status === 'loading' ? (
          <p>Loading the contract address…</p>
        ) : (
          <p className="error">The contract address could not be loaded. Please reload the page.</p>
        )}
      </section>
    </div>
  );
}
