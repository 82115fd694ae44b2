/** Rendered, sanitised CommonMark; the renderer is fetched the first time one is shown. */
import { useEffect, useRef, useState } from 'preact/hooks';

type Render = (source: string) => DocumentFragment;
let loading: Promise<Render> | null = null;
const loadRenderer = () => (loading ??= import('./markdown').then((module) => module.renderMarkdown));

interface Props {
  source: string;
  /** Shown for an empty source. */
  emptyText: string;
  label?: string;
}

export function MarkdownView({ source, emptyText, label }: Props) {
  const [render, setRender] = useState<Render | null>(null);
  const [failed, setFailed] = useState(false);
  const target = useRef<HTMLDivElement>(null);

  useEffect(() => {
    loadRenderer().then(
      (loaded) => setRender(() => loaded),
      () => setFailed(true),
    );
  }, []);

  useEffect(() => {
    // The sanitised fragment is inserted as nodes: the markup is never parsed again as a string.
    if (render && target.current) target.current.replaceChildren(render(source));
  }, [render, source]);

  if (!source.trim()) return <p class="muted markdown-empty">{emptyText}</p>;
  return (
    <>
      {!render && !failed && <p class="muted">Rendering…</p>}
      {failed && <pre class="markdown-source">{source}</pre>}
      <div class="markdown" ref={target} aria-label={label} role={label ? 'region' : undefined} />
    </>
  );
}
