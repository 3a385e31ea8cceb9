import { Link } from 'react-router-dom';
import { paths } from '../../core/routes';
import { catalog } from '../catalog';
import { usePageTitle } from '../lib/title';

export default function VendorsPage() {
  usePageTitle('Vendors');
  const listed = catalog.vendors.filter((v) => v.listed);
  return (
    <div className="page">
      <h1>Vendors</h1>
      <ul className="vendor-list">
        {listed.map((v) => (
          <li key={v.id}>
            <Link className="vendor-tile" to={paths.vendor(v.id)}>
              <img src={v.tileImage} alt="" width={400} height={300} />
              <span className="vendor-tile-name">{v.name}</span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
