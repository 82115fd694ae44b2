/**
 * Accessibility checks with axe-core, run inside the page. Its source is evaluated through the
 * DevTools protocol (page.evaluate) rather than added as a <script>: the app's Content-Security-
 * Policy refuses inline scripts, as it should, and the check must not loosen it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What axe reports of one rule: the rule, its impact, what it asks, and where it failed. */
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/**
 * axe-core's serious and critical violations on the page as it is now (every rule axe runs by
 * default: WCAG 2.x A and AA, and best practices), one line each with the elements it names.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((results) => results.violations)`,
  )) as Violation[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}: ` +
        violation.nodes
          .slice(0, 5)
          .map((node) => node.target.join(' '))
          .join(', '),
    );
}
