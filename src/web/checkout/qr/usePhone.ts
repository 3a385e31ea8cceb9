import { useEffect, useState } from 'react';

/**
 * Whether this screen is a phone's: a coarse pointer (a finger) as the primary input. Read after hydration (the
 * prerendered first frame is the same for every device) and followed if it changes (a tablet's keyboard).
 */
export function usePhone(): boolean {
  const [phone, setPhone] = useState(false);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const query = window.matchMedia('(hover: none) and (pointer: coarse)');
    setPhone(query.matches);
    const onChange = () => setPhone(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return phone;
}
