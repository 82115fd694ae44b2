import { useEffect } from 'preact/hooks';

/** Names the browser tab after the page, so history and screen readers tell pages apart. */
export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · tasklane` : 'tasklane';
  }, [title]);
}
