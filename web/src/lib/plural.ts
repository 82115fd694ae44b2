/**
 * Counts in words: "1 task", "2 tasks", "1 task matches", "2 tasks match". Every count the app
 * shows goes through here, so none reads "1 tasks" or "1 task match".
 */

/** The word for `n` of something: `plural(1, 'task')` is "task", `plural(2, 'task')` "tasks". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `n` and its word: `countOf(1, 'task')` is "1 task", `countOf(0, 'task')` "0 tasks". */
export function countOf(n: number, one: string, many?: string): string {
  return `${n} ${plural(n, one, many)}`;
}
