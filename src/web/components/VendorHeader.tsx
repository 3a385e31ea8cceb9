import type { Vendor } from '../../core/catalog';

/** The vendor's banner image; with `full`, also its name, description and social link. */
export function VendorHeader({ vendor, full = false }: { vendor: Vendor; full?: boolean }) {
  return (
    <header className="vendor-header">
      <img
        className="vendor-banner"
        src={vendor.headerImage}
        alt={full ? '' : `${vendor.name} banner`}
        width={1200}
        height={300}
        fetchPriority="high"
      />
      {full && (
        <div className="vendor-intro">
          <h1>{vendor.name}</h1>
          <p>{vendor.description}</p>
          <p>
            <a href={vendor.social.url} target="_blank" rel="noopener noreferrer">
              {vendor.social.label}
            </a>
          </p>
        </div>
      )}
    </header>
  );
}
