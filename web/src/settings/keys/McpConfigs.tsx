/**
 * The copy-paste MCP configurations (docs/mcp.md) for a key just made: a desktop assistant's and
 * a command-line agent's, each with this server's /mcp and the key, and a Copy button.
 */
import { useRef, useState } from 'preact/hooks';
import { copyText } from '../../lib/clipboard';

export function McpConfigs({ secret }: { secret: string }) {
  const url = `${window.location.origin}/mcp`;
  const desktop = JSON.stringify(
    { mcpServers: { tasklane: { type: 'http', url, headers: { Authorization: `Bearer ${secret}` } } } },
    null,
    2,
  );
  const cli = `claude mcp add --transport http tasklane ${url} \\\n  --header "Authorization: Bearer ${secret}"`;
  return (
    <div class="mcp-configs">
      <p class="small">
        <strong>Connect an AI assistant</strong> to this server’s MCP endpoint with this key:
      </p>
      <ConfigBlock id="mcp-desktop" title="Desktop assistant (its MCP servers file)" text={desktop} />
      <ConfigBlock id="mcp-cli" title="Command-line agent (Claude Code)" text={cli} />
    </div>
  );
}

function ConfigBlock({ id, title, text }: { id: string; title: string; text: string }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <div class="config-block">
      <div class="config-head">
        <label for={id}>{title}</label>
        <button
          type="button"
          class="button-quiet"
          aria-label={`Copy: ${title}`}
          onClick={async () => setCopied(await copyText(text, area.current))}
        >
          Copy
        </button>
      </div>
      <textarea id={id} ref={area} readOnly rows={text.split('\n').length} value={text} spellcheck={false} />
      <p class="small" role="status">
        {copied === true && 'Copied to the clipboard.'}
        {copied === false && 'Could not copy: select the text and copy it yourself.'}
      </p>
    </div>
  );
}
