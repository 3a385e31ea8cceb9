import { parseCatalog, type Catalog } from '../src/core/catalog.ts';
import { products } from './products.ts';
import { vendors } from './vendors.ts';

/** The validated catalogue. Importing this module validates it: a broken entry stops the build and the start. */
export const catalog: Catalog = parseCatalog({ vendors, products });
