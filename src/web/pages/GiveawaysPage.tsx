import { Countdown } from '../components/Countdown';
import { GIVEAWAY_PARTICIPANTS } from '../data/giveaway-participants';
import { TELEGRAM_GROUP_URL } from '../lib/links';
import { usePageTitle } from '../lib/title';

export default function GiveawaysPage() {
  usePageTitle('AirDrops & Giveaways');
  return (
    <div className="page giveaways">
      <h1>AirDrops &amp; Giveaways</h1>
      <Countdown />
      <section className="card" aria-labelledby="giveaway-title">
        <h2 id="giveaway-title">Monthly giveaway</h2>
        <p className="prize">
          Prize this month: <strong>$600 of custom glass</strong>
        </p>
        <p>A giveaway is held on the 2nd of every month.</p>
        <p>
          To be entered you must hold at least <strong>$10 USD in $CLAIM</strong>. Message an organiser on{' '}
          <a href={TELEGRAM_GROUP_URL} target="_blank" rel="noopener noreferrer">
            Telegram
          </a>{' '}
          to be entered.
        </p>
      </section>
      <section className="card" aria-labelledby="participants-title">
        <h2 id="participants-title">Entered participants</h2>
        <ul className="participants">
          {GIVEAWAY_PARTICIPANTS.map((name) => (
            <li key={name}>{name}</li>
          ))}
        </ul>
      </section>
    </div>
  );
}
