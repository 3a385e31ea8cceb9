import { useEffect } from 'react';

export const SITE_NAME = '$CLAIM Store';

export function fullTitle(title: string): string {
  return title ? `${title} | ${SITE_NAME}` : SITE_NAME;
}

/** The title of the page rendered last on the server (the build's prerender reads it for `<title>`). */
let serverTitle: string | undefined;
export function takeServerTitle(): string | undefined {
  const t = serverTitle;
  serverTitle = undefined;
  return t;
}

export function usePageTitle(title: string): void {
  if (typeof document === 'undefined') serverTitle = fullTitle(title);
  useEffect(() => {
    document.title = fullTitle(title);
  }, [title]);
}
