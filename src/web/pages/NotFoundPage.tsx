import { Link } from 'react-router-dom';
import { paths } from '../../core/routes';
import { usePageTitle } from '../lib/title';

export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <section className="page narrow not-found">
      <h1>Page not found</h1>
      <p>We could not find the page you asked for. It may have moved, or the address may be mistyped.</p>
      <p>
        <Link className="button" to={paths.home}>
          Back to Home
        </Link>{' '}
        <Link className="button secondary" to={paths.vendors}>
          Browse vendors
        </Link>
      </p>
    </section>
  );
}
