import { useEffect, useState } from 'react';
import { toDataURL } from 'qrcode';

/**
 * The payment link as a QR code image (the `qrcode` package, rendered to a PNG data URL at 4× so that it stays
 * sharp on dense screens, displayed at `size` CSS pixels). Shows `placeholder` until the image is ready.
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
  const [image, setImage] = useState<{ text: string; src: string } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    toDataURL(text, {
      width: size * 4,
      margin: 4,
      errorCorrectionLevel: 'M',
      color: { dark: '#000000', light: '#ffffff' },
    })
      .then((src) => {
        if (live) setImage({ text, src });
      })
      .catch(() => {
        if (live) setFailed(text);
      });
    return () => {
      live = false;
    };
  }, [text, size]);
  if (failed === text)
    return <p className="error">Could not draw the QR code. Use the payment link below.</p>;
  if (!image || image.text !== text) return <p>{placeholder}</p>;
  return (
    <img
      className="qr-image"
      src={image.src}
      alt={alt}
      width={size}
      height={size}
      style={{ imageRendering: 'pixelated' }}
      data-testid="qr-image"
    />
  );
}
