/** Changing the password (the server signs out this person's other sessions). */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { changePassword } from '../api/session';
import { NewPasswordFields, newPasswordProblem } from '../auth/NewPasswordFields';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';

export function PasswordForm() {
  const notify = useNotify();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const problem = newPasswordProblem(next, repeat, 'The new password');
    if (problem) return setError(problem);
    setError(null);
    try {
      await changePassword(current, next);
      setCurrent('');
      setNext('');
      setRepeat('');
      notify('Password changed. Your other sessions have been signed out.');
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  return (
    <form class="card" aria-labelledby="password-heading" onSubmit={submit}>
      <h2 id="password-heading">Password</h2>
      <label class="field">
        <span>Current password</span>
        <input
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
      </label>
      <NewPasswordFields password={next} repeat={repeat} onPassword={setNext} onRepeat={setRepeat} />
      <ErrorNote message={error} />
      <div class="form-actions">
        {/* Like "Save name": there is nothing to submit until every field is filled in. */}
        <button type="submit" class="button-primary" disabled={!current || !next || !repeat}>
          Change password
        </button>
      </div>
    </form>
  );
}
