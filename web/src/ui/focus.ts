/**
 * Focuses an element when it appears: `ref={focusOnMount}`. The autofocus attribute works only
 * once per page load, and this app shows forms long after that (a sign-in after signing out,
 * a rename form, the description editor).
 */
export function focusOnMount(element: HTMLElement | null): void {
  element?.focus();
}
