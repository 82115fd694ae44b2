/**
 * Short messages about what just happened ("Key revoked", "Could not save: …"), announced to
 * screen readers through a live region and dismissed after a while.
 */
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useMemo, useState } from 'preact/hooks';

type Kind = 'info' | 'error';
interface Notice {
  id: number;
  kind: Kind;
  text: string;
}

const NoticeContext = createContext<(text: string, kind?: Kind) => void>(() => {});

export const useNotify = () => useContext(NoticeContext);

let nextId = 1;

export function NoticeProvider({ children }: { children: ComponentChildren }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const dismiss = useCallback((id: number) => setNotices((all) => all.filter((notice) => notice.id !== id)), []);
  const notify = useCallback(
    (text: string, kind: Kind = 'info') => {
      const id = nextId++;
      setNotices((all) => [...all.slice(-3), { id, kind, text }]);
      setTimeout(() => dismiss(id), kind === 'error' ? 10_000 : 5_000);
    },
    [dismiss],
  );
  const value = useMemo(() => notify, [notify]);

  return (
    <NoticeContext.Provider value={value}>
      {children}
      <div class="notices" role="status" aria-live="polite">
        {notices.map((notice) => (
          <div key={notice.id} class={`notice notice-${notice.kind}`}>
            <span>{notice.text}</span>
            <button type="button" class="button-quiet" aria-label="Dismiss message" onClick={() => dismiss(notice.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </NoticeContext.Provider>
  );
}
