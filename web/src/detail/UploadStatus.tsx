/** An upload's progress bar and, once over, why any file was refused (read out when it appears). */
import type { Uploads } from './use-uploads';

export function UploadStatus({ uploads }: { uploads: Uploads }) {
  const { current, error } = uploads;
  return (
    <>
      {current && (
        <p class="upload-progress">
          <progress
            max={1}
            value={current.sent}
            aria-label={`Uploading “${current.name}”${current.count > 1 ? ` (${current.position} of ${current.count})` : ''}`}
          />
          <span class="muted small">
            {current.count > 1 ? `${current.position} of ${current.count}: ` : ''}
            {current.name} {Math.round(current.sent * 100)}%
          </span>
        </p>
      )}
      {error && (
        <p class="error-note upload-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
