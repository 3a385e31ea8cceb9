import { Link } from 'react-router-dom';
import { paths } from '../../core/routes';
import { vendorById } from '../catalog';
import { PriceCard } from '../components/PriceCard';
import { usePageTitle } from '../lib/title';

export default function HomePage() {
  usePageTitle('');
  const glass = vendorById('coopersglass');
  return (
    <div className="page home">
      <section className="hero" aria-labelledby="hero-title">
        {glass && (
          <img
            className="hero-image"
            src={glass.headerImage}
            alt=""
            width={1200}
            height={300}
            fetchPriority="high"
          />
        )}
        <div className="hero-text">
          <p className="eyebrow">Featured vendor</p>
          <h1 id="hero-title">{glass?.name ?? 'Coopers Glass'}</h1>
          <p>Hand-blown crushed opal, neon and stardust glass, paid for in $CLAIM.</p>
          <Link className="button big" to={paths.vendor('coopersglass')}>
            Shop
          </Link>
        </div>
      </section>
      <div className="home-grid">
        <PriceCard />
        <section className="card" aria-labelledby="home-new-title">
          <h2 id="home-new-title">New to $CLAIM?</h2>
          <p>Get a wallet, buy SOL and swap it for $CLAIM in three steps.</p>
          <Link className="button secondary" to={paths.guide}>
            Buy $Claim
          </Link>
        </section>
        <section className="card" aria-labelledby="home-drop-title">
          <h2 id="home-drop-title">Weekly airdrop &amp; burn</h2>
          <p>Every Sunday at midnight (PST) all holders get more $CLAIM based on their holdings.</p>
          <Link className="button secondary" to={paths.giveaways}>
            AirDrops &amp; Giveaways
          </Link>
        </section>
      </div>
    </div>
  );
}
