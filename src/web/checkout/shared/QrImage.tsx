import { useState } from 'react';

/** Codes the server sent with a QR record (its `qrSvg`), as data: URLs by link: shown without another request. */
const drawn = new Map<string, string>();

/** Keeps the code the server drew for `link` (a QR record's answer carries it) for the QR image of that link. */
export function keepDrawnQr(link: string, svg: string | undefined): void {
  if (svg === undefined || !svg.startsWith('<svg')) return;
  if (drawn.size >= 8) drawn.delete(drawn.keys().next().value as string);
  drawn.set(link, `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
}

/**
 * The server draws the code (GET /api/qr.svg, src/server/http/qr-route.ts): no QR library in the browser. A code
 * already sent with the record is used as it is (same drawing, no round trip).
 */
export function qrImageUrl(text: string): string {
  return drawn.get(text) ?? `/api/qr.svg?data=${encodeURIComponent(text)}`;
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
