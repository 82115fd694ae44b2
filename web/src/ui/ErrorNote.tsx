/** An error shown where it happened, read out when it appears. */
export function ErrorNote({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p class="error-note" role="alert">
      {message}
    </p>
  );
}
