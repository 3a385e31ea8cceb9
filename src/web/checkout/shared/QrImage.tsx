import { useState } from 'react';

/** The server draws the code (GET /api/qr.svg, src/server/http/qr-route.ts): no QR library in the browser. */
export function qrImageUrl(text: string): string {
  return `/api/qr.svg?data=${encodeURIComponent(text)}`;
}

/**
 * The payment link as a QR code image: an SVG drawn by the server (crisp edges at any pixel density), displayed
 * at `size` CSS pixels. Shows `placeholder` until the image for the current link has loaded.
 */
export function QrImage({
  text,
  size,
  alt,
  placeholder,
}: {
  text: string;
  size: number;
  alt: string;
  placeholder: string;
}) {
  const [loaded, setLoaded] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  if (failed === text)
    return <p className="error">Could not draw the QR code. Use the payment link below.</p>;
  const ready = loaded === text;
  return (
    <>
      {!ready && <p>{placeholder}</p>}
      <img
        key={text}
        className="qr-image"
        src={qrImageUrl(text)}
        alt={alt}
        width={size}
        height={size}
        hidden={!ready}
        onLoad={() => setLoaded(text)}
        onError={() => setFailed(text)}
        data-testid="qr-image"
      />
    </>
  );
}
