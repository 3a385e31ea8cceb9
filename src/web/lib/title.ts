import { useEffect } from 'react';

export const SITE_NAME = '$CLAIM Store';

export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} | ${SITE_NAME}` : SITE_NAME;
  }, [title]);
}
