import { lazy } from 'react';
import { Route, Routes, useParams } from 'react-router-dom';
import { paths } from '../../core/routes';
import { catalog, vendorById } from '../catalog';
import { NotFoundPage } from '../pages/NotFoundPage';
import { Shell } from './Shell';

// One lazy chunk per screen: the light pages never load product or checkout code.
const HomePage = lazy(() => import('../pages/HomePage'));
const GuidePage = lazy(() => import('../pages/GuidePage'));
const AboutPage = lazy(() => import('../pages/AboutPage'));
const GiveawaysPage = lazy(() => import('../pages/GiveawaysPage'));
const VendorsPage = lazy(() => import('../pages/VendorsPage'));
const VendorPage = lazy(() => import('../pages/VendorPage'));
const ProductPage = lazy(() => import('../pages/ProductPage'));

/** Every product route of the catalogue (canonical and legacy aliases such as /proxrec) → one template. */
const productRoutes = catalog.products.flatMap((p) => p.routes.map((path) => ({ path, productId: p.id })));

function VendorRoute() {
  const { vendorId = '' } = useParams();
  const vendor = vendorById(vendorId.toLowerCase());
  return vendor ? <VendorPage key={vendor.id} vendor={vendor} /> : <NotFoundPage />;
}

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route path={paths.home} element={<HomePage />} />
        <Route path={paths.guide} element={<GuidePage />} />
        <Route path={paths.about} element={<AboutPage />} />
        <Route path={paths.giveaways} element={<GiveawaysPage />} />
        <Route path={paths.vendors} element={<VendorsPage />} />
        <Route path={paths.vendor(':vendorId')} element={<VendorRoute />} />
        {productRoutes.map(({ path, productId }) => (
          <Route key={path} path={path} element={<ProductPage key={productId} productId={productId} />} />
        ))}
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
