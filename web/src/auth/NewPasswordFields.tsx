/**
 * A new password typed twice, with the server's rule (8 to 200 characters): the password form in
 * Settings and the invitation page share it, so both ask alike and refuse alike before sending,
 * in the app's own words (no `minLength`, whose browser bubble would speak first).
 */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 200;

/** Why these two fields cannot be sent yet, or null. `what` names the field ("The new password"). */
export function newPasswordProblem(password: string, repeat: string, what = 'The password'): string | null {
  if (password.length < PASSWORD_MIN) return `${what} must be at least ${PASSWORD_MIN} characters long.`;
  if (password !== repeat) return `${what}s do not match.`;
  return null;
}

interface Props {
  password: string;
  repeat: string;
  onPassword: (value: string) => void;
  onRepeat: (value: string) => void;
  /** "New password" in Settings, "Password" for a new account. */
  label?: string;
}

export function NewPasswordFields({ password, repeat, onPassword, onRepeat, label = 'New password' }: Props) {
  return (
    <>
      <label class="field">
        <span>{label}</span>
        <input
          type="password"
          autoComplete="new-password"
          required
          maxLength={PASSWORD_MAX}
          aria-describedby="password-rule"
          value={password}
          onInput={(e) => onPassword(e.currentTarget.value)}
        />
      </label>
      <p id="password-rule" class="muted small">
        At least {PASSWORD_MIN} characters.
      </p>
      <label class="field">
        <span>Repeat the {label.toLowerCase()}</span>
        <input
          type="password"
          autoComplete="new-password"
          required
          value={repeat}
          onInput={(e) => onRepeat(e.currentTarget.value)}
        />
      </label>
    </>
  );
}
