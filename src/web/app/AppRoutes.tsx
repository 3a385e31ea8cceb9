import { lazy } from 'react';
import { Route, Routes, useParams } from 'react-router-dom';
import { ORDER_TOKEN, paths, type Screen } from '../../core/routes';
import { catalog, vendorById } from '../catalog';
import { NotFoundPage } from '../pages/NotFoundPage';
import { Shell } from './Shell';

// One lazy chunk per screen: the light pages never load product or checkout code.
const load = {
  home: () => import('../pages/HomePage'),
  guide: () => import('../pages/GuidePage'),
  about: () => import('../pages/AboutPage'),
  giveaways: () => import('../pages/GiveawaysPage'),
  vendors: () => import('../pages/VendorsPage'),
  vendor: () => import('../pages/VendorPage'),
  product: () => import('../pages/ProductPage'),
  order: () => import('../pages/OrderPage'),
  orderData: () => import('../pages/OrderDataPage'),
  seller: () => import('../seller/SellerPage'),
};
const HomePage = lazy(load.home);
const GuidePage = lazy(load.guide);
const AboutPage = lazy(load.about);
const GiveawaysPage = lazy(load.giveaways);
const VendorsPage = lazy(load.vendors);
const VendorPage = lazy(load.vendor);
const ProductPage = lazy(load.product);
const OrderPage = lazy(load.order);
const OrderDataPage = lazy(load.orderData);
const SellerPage = lazy(load.seller);

/**
 * Fetches the chunks the first render of a screen needs (the page, and on product pages the checkout slot the
 * page renders at once: QrPay or WalletSlot). main.tsx awaits it before hydrating prerendered HTML, so the
 * page hydrates in one pass instead of staying dehydrated while its data arrives.
 */
export function preloadScreen(screen: Screen): Promise<unknown> {
  if (screen.kind === 'not-found') return Promise.resolve();
  if (screen.kind === 'product') return load.product().then((m) => m.preloadCheckout(screen.product.payment));
  if (screen.kind === 'order' && screen.data) return load.orderData();
  return load[screen.kind]();
}

/** Every product route of the catalogue (canonical and legacy aliases such as /proxrec) → one template. */
const productRoutes = catalog.products.flatMap((p) => p.routes.map((path) => ({ path, productId: p.id })));

function OrderRoute() {
  const { token = '' } = useParams();
  const t = token.toLowerCase();
  return ORDER_TOKEN.test(t) ? <OrderPage key={t} token={t} /> : <NotFoundPage />;
}

function OrderDataRoute() {
  const { token = '' } = useParams();
  const t = token.toLowerCase();
  return ORDER_TOKEN.test(t) ? <OrderDataPage key={t} token={t} /> : <NotFoundPage />;
}

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
        <Route path={paths.seller} element={<SellerPage />} />
        <Route path={paths.vendor(':vendorId')} element={<VendorRoute />} />
        <Route path={paths.order(':token')} element={<OrderRoute />} />
        <Route path={paths.orderData(':token')} element={<OrderDataRoute />} />
        {productRoutes.map(({ path, productId }) => (
          <Route key={path} path={path} element={<ProductPage key={productId} productId={productId} />} />
        ))}
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
