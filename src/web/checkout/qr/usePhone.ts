import { useEffect, useState } from 'react';

/** The media query of a phone's screen: a coarse pointer (a finger) as the primary input, no hover. */
export const PHONE_QUERY = '(hover: none) and (pointer: coarse)';

/**
 * Whether this screen is a phone's (PHONE_QUERY): undefined until read after hydration (the prerendered first
 * frame is the same for every device; the page's CSS picks the phone's texts there, styles.css `.for-phone`),
 * then followed if it changes (a tablet's keyboard).
 */
export function usePhone(): boolean | undefined {
  const [phone, setPhone] = useState<boolean | undefined>(undefined);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') {
      setPhone(false);
      return;
    }
    const query = window.matchMedia(PHONE_QUERY);
    setPhone(query.matches);
    const onChange = () => setPhone(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return phone;
}
