import { parseCatalog, type Catalog } from '../src/core/catalog';
import { products } from './products';
import { vendors } from './vendors';

/** The validated catalogue. Importing this module validates it: a broken entry stops the build and the start. */
export const catalog: Catalog = parseCatalog({ vendors, products });
